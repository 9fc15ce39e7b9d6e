import CSQLite
import Dispatch
import Foundation
import Synchronization

/// A write waiting for its transaction.
protocol PendingWork: AnyObject, Sendable {
    /// Whether its caller is answered only after an fsync (see `Database.write(durable:_:)`).
    var durable: Bool { get }
    /// Runs the write on the writer's connection (inside its savepoint); false when it threw.
    func run(on c: Connection) -> Bool
    /// Resumes the caller: with the write's own result, or `failure` (its transaction failed).
    func finish(failure: (any Error)?)
}
