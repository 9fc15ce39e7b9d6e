import LastsetCore
import LastsetHTTP
import Synchronization

/// The daemon's events (`GET /v1/events`, server-sent events): machine findings, drift, jobs' start, progress and
/// end, published by the poller, the machine watch and the job table, and sent to every open stream. Nothing is
/// kept for a client that connects later (the API's lists and `GET /v1/jobs` hold the state); a stream a client
/// does not read is cut by its own bound (`HTTPStream.limit`).
final class EventHub: Sendable {
    private struct State {
        var next = 1
        var streams: [ObjectIdentifier: HTTPStream] = [:]
        var closed = false
    }
    private let state = Mutex(State())

    /// A new stream of every event from now on (nil once the hub is closed: the daemon is stopping).
    func subscribe() -> HTTPStream? {
        let stream = HTTPStream()
        let added = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            s.streams[ObjectIdentifier(stream)] = stream
            return true
        }
        guard added else { return nil }
        stream.onClose { [weak self] in self?.drop(stream) }
        // A first comment: the client knows the stream is open before the first event.
        stream.push(Array(": lastsetd events\n\n".utf8))
        return stream
    }

    /// Sends `event` to every open stream.
    func publish(_ event: ServerEvent) {
        let (id, streams) = state.withLock { s -> (Int, [HTTPStream]) in
            defer { s.next += 1 }
            return (s.next, Array(s.streams.values))
        }
        guard !streams.isEmpty else { return }
        let bytes = event.sse(id: id)
        for stream in streams { stream.push(bytes) }
    }

    /// How many streams are open.
    var subscribers: Int { state.withLock { $0.streams.count } }

    /// Ends every stream and refuses new ones (the daemon is stopping).
    func close() {
        let streams = state.withLock { s -> [HTTPStream] in
            s.closed = true
            defer { s.streams = [:] }
            return Array(s.streams.values)
        }
        for stream in streams { stream.finish() }
    }

    private func drop(_ stream: HTTPStream) {
        _ = state.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
    }
}
