import CSQLite
import Dispatch
import Foundation
import Synchronization

/// One reader connection and the queue every call on it runs on.
final class Reader: @unchecked Sendable {
    let queue: DispatchQueue
    private let connection: Connection

    init(connection: Connection, label: String) {
        self.connection = connection
        queue = DispatchQueue(label: label)
    }

    private var closed = false

    /// Closes the connection once the reads queued before have run.
    func close() {
        queue.sync {
            closed = true
            connection.close()
        }
    }

    /// Runs `work` in a read transaction (on `queue`).
    func run<T>(_ work: (Connection) throws -> T) throws -> T {
        guard !closed else { throw Database.closedError(connection.path) }
        try connection.execute("BEGIN", operation: "begin reading")
        // Ending a read transaction writes nothing; it cannot fail in a way the read's result depends on.
        defer { try? connection.execute("COMMIT") }
        return try work(connection)
    }
}
