import Foundation
import LastsetCore
import LastsetHTTP
import Synchronization

/// The daemon's events (`GET /v1/events`, server-sent events): machine findings, drift, jobs' start, progress and
/// end, published by the poller, the machine watch and the job table, and sent to every open stream. Each event has an
/// id, `RUN-N` (`EventPosition`: this run's token, its number counting up from 1), and the last `capacity` events are
/// kept, so a client that reconnects with `Last-Event-ID` gets what it missed, in order — or, when they are no longer
/// all kept or the id is from another run, a `gap` event first (`EventReplay`). A stream a client does not read is cut
/// by its own bound (`HTTPStream.limit`).
final class EventHub: Sendable {
    /// One kept event: its number and its wire form.
    private struct Kept {
        let sequence: Int
        let bytes: [UInt8]
    }

    private struct State {
        var newest = 0
        /// The last `capacity` events, oldest first (a ring: `start` is the oldest's index once full).
        var kept: [Kept] = []
        var start = 0
        var streams: [ObjectIdentifier: HTTPStream] = [:]
        var closed = false

        /// The kept events, oldest first.
        var ordered: [Kept] { Array(kept[start...] + kept[..<start]) }
    }

    /// The comment sent to every stream before the hub closes them (the daemon is stopping): a client that sees it
    /// knows the stream ended on purpose, not by a dropped connection.
    static let stopping = Array((ServerEventStream.stoppingComment + "\n\n").utf8)

    /// This run of the daemon (the first part of every event id).
    let run: String
    /// How many recent events are kept for clients that reconnect.
    let capacity: Int
    private let state = Mutex(State())

    /// A hub whose ids begin with `run` (default: drawn at random) and which keeps the last `capacity` events.
    init(run: String = EventHub.newRun(), capacity: Int = 1024) {
        self.run = run
        self.capacity = max(1, capacity)
    }

    /// A run token: 12 lower-case hex digits, drawn at random (a restarted daemon's ids never match the old ones').
    static func newRun() -> String {
        let n = UInt64.random(in: 0..<(1 << 48))
        let hex = String(n, radix: 16)
        return String(repeating: "0", count: 12 - hex.count) + hex
    }

    /// A new stream of every event from now on, after what a client reconnecting with `lastEventID` missed (or a
    /// `gap` event); nil once the hub is closed (the daemon is stopping). The replay and the subscription are one step:
    /// no event is lost or sent twice between them.
    func subscribe(lastEventID: String? = nil) -> HTTPStream? {
        let stream = HTTPStream()
        let added = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            // A first comment (the client knows the stream is open before the first event), then the position: a
            // client that reconnects before any event still says where it was.
            var opening = Array(": lastsetd events\n\n".utf8)
            let decision = EventReplay.decide(
                lastEventID: lastEventID, run: run, newest: s.newest, oldestKept: s.kept.isEmpty ? nil : s.kept[s.start].sequence)
            switch decision {
            case .live:
                opening += Array("id: \(EventPosition(run: run, sequence: s.newest))\n\n".utf8)
            case .replay(let after):
                for kept in s.ordered where kept.sequence > after { opening += kept.bytes }
            case .gap(let gap):
                let event = ServerEvent(event: .gap, reason: gap.reason)
                opening += event.sse(id: EventPosition(run: run, sequence: s.newest).description)
            }
            stream.push(opening)
            s.streams[ObjectIdentifier(stream)] = stream
            return true
        }
        guard added else { return nil }
        stream.onClose { [weak self] in self?.drop(stream) }
        return stream
    }

    /// Numbers `event`, keeps it, and sends it to every open stream (in the order published).
    func publish(_ event: ServerEvent) {
        state.withLock { s in
            s.newest += 1
            let bytes = event.sse(id: EventPosition(run: run, sequence: s.newest).description)
            let kept = Kept(sequence: s.newest, bytes: bytes)
            if s.kept.count < capacity {
                s.kept.append(kept)
            } else {
                s.kept[s.start] = kept
                s.start = (s.start + 1) % capacity
            }
            for stream in s.streams.values { stream.push(bytes) }
        }
    }

    /// How many streams are open.
    var subscribers: Int { state.withLock { $0.streams.count } }

    /// Ends every stream (each gets the `stopping` comment first) and refuses new ones (the daemon is stopping).
    func close() {
        let streams = state.withLock { s -> [HTTPStream] in
            s.closed = true
            defer { s.streams = [:] }
            return Array(s.streams.values)
        }
        for stream in streams {
            stream.push(Self.stopping)
            stream.finish()
        }
    }

    private func drop(_ stream: HTTPStream) {
        _ = state.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
    }
}
