import CSQLite
import Dispatch
import Foundation
import Synchronization

final class PendingWrite<T>: PendingWork, @unchecked Sendable {
    let durable: Bool
    private let work: (Connection) throws -> T
    private let complete: (Result<T, any Error>) -> Void
    private var result: Result<T, any Error>?

    init(durable: Bool = true, work: @escaping (Connection) throws -> T, complete: @escaping (Result<T, any Error>) -> Void) {
        self.durable = durable
        self.work = work
        self.complete = complete
    }

    func run(on c: Connection) -> Bool {
        result = Result { try work(c) }
        if case .success = result { return true }
        return false
    }

    func finish(failure: (any Error)?) {
        if let failure, case .success? = result {
            complete(.failure(failure))
        } else {
            complete(result ?? .failure(failure ?? CancellationError()))
        }
    }
}
