import Foundation
import Synchronization

/// A response body produced over time (the API's server-sent events): the application pushes bytes, the connection's
/// own libmicrohttpd thread (one per connection) takes them as they come, blocking while there are none and sending
/// `keepAlive` after each silence of the listener's keep-alive interval (so neither the client nor the server's idle
/// timeout ends a quiet stream). It ends when the application finishes it, when the client goes away (`onClose`
/// hears it), when the server stops, or when the client reads so slowly that `limit` bytes wait unsent.
public final class HTTPStream: @unchecked Sendable {
    /// What is sent after a silence (an SSE comment by default).
    public let keepAlive: [UInt8]
    /// Bytes that may wait unsent before the stream is cut.
    public let limit: Int
    private let condition = NSCondition()
    private var pending: [UInt8] = []
    private var ended = false
    private var closeHandlers: [@Sendable () -> Void] = []

    /// A stream sending `keepAlive` after each silence, cut when more than `limit` bytes wait.
    public init(keepAlive: [UInt8] = Array(": keep-alive\n\n".utf8), limit: Int = 1 << 20) {
        self.keepAlive = keepAlive
        self.limit = limit
    }

    /// Queues `bytes` for the client; false when the stream has ended (nothing queued).
    @discardableResult
    public func push(_ bytes: [UInt8]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !ended else { return false }
        if pending.count + bytes.count > limit {
            // A client this far behind is not reading: it is cut rather than held in memory.
            endLocked()
            return false
        }
        pending += bytes
        condition.signal()
        return true
    }

    /// Ends the stream: what is queued is still sent, then the response ends.
    public func finish() {
        condition.lock()
        endLocked()
        condition.unlock()
    }

    /// Whether the stream has ended.
    public var isEnded: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended
    }

    /// Calls `handler` once when the stream ends, however it ends (at once when it has ended already).
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        condition.lock()
        if ended {
            condition.unlock()
            handler()
            return
        }
        closeHandlers.append(handler)
        condition.unlock()
    }

    /// Up to `max` bytes: what is queued, else — after waiting up to `idle` — the keep-alive bytes; nil once ended
    /// with nothing left. Called on the connection's thread only.
    func read(max: Int, idle: Duration) -> [UInt8]? {
        condition.lock()
        defer { condition.unlock() }
        if pending.isEmpty && !ended {
            let (seconds, atto) = idle.components
            _ = condition.wait(until: Date().addingTimeInterval(Double(seconds) + Double(atto) / 1e18))
        }
        if !pending.isEmpty {
            let taken = Array(pending.prefix(max))
            pending.removeFirst(taken.count)
            return taken
        }
        return ended ? nil : Array(keepAlive.prefix(max))
    }

    /// The client went away or the server stopped: the stream ends, its close handlers run.
    func closed() { finish() }

    private func endLocked() {
        guard !ended else { return }
        ended = true
        condition.broadcast()
        let handlers = closeHandlers
        closeHandlers = []
        // Run outside the caller's expectations but inside the lock is unsafe for handlers that push: hand them off.
        if !handlers.isEmpty { DispatchQueue.global().async { for h in handlers { h() } } }
    }
}

extension HTTPStream: Equatable {
    /// The same stream.
    public static func == (a: HTTPStream, b: HTTPStream) -> Bool { a === b }
}
