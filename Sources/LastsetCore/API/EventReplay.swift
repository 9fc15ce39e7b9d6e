import Foundation

/// Where a client of `GET /v1/events` is in the daemon's events: the daemon's run (a token drawn at each start) and
/// the event's number in that run (from 1). On the wire it is the SSE `id`, `RUN-N` (`k3f9q2x7-12`): a client
/// reconnecting sends it back as `Last-Event-ID`.
public struct EventPosition: Hashable, Sendable, CustomStringConvertible {
    /// The daemon's run.
    public var run: String
    /// The event's number in the run (0: before the first).
    public var sequence: Int

    /// Sets every field.
    public init(run: String, sequence: Int) {
        self.run = run
        self.sequence = sequence
    }

    /// `RUN-N`.
    public var description: String { "\(run)-\(sequence)" }

    /// `RUN-N` read back (at the last `-`); nil for anything else.
    public init?(_ text: String) {
        guard let dash = text.lastIndex(of: "-") else { return nil }
        let run = text[..<dash]
        let digits = text[text.index(after: dash)...]
        guard !run.isEmpty, !digits.isEmpty, digits.count <= 18, digits.utf8.allSatisfy({ (48...57).contains($0) }),
            let n = Int(digits)
        else { return nil }
        self.init(run: String(run), sequence: n)
    }
}

/// What a client reconnecting to `GET /v1/events` with `Last-Event-ID` gets before the live events: the events it
/// missed, in order, when the daemon still keeps them all; otherwise a `gap` event first, so that it knows to fetch
/// the state again (`GET /v1/devices`, `GET /v1/jobs`). The one decision; pure (`EventReplayTests`).
public enum EventReplay {
    /// Why the missed events cannot be replayed.
    public enum Gap: Hashable, Sendable {
        /// The id is not one this daemon gives (`RUN-N`).
        case unreadable(String)
        /// The id is from another run of the daemon (it restarted since): nothing it had is known.
        case otherRun(String)
        /// Events after the id were dropped from the daemon's bounded memory of recent events.
        case tooOld(String, oldestKept: Int)
        /// An id of this run the daemon has not given yet.
        case ahead(String)

        /// What the `gap` event says.
        public var reason: String {
            switch self {
            case .unreadable(let id): return "Last-Event-ID \"\(id)\" is not an event id of lastsetd: events may have been missed"
            case .otherRun(let id):
                return "Last-Event-ID \(id) is from another run of lastsetd (it restarted): events may have been missed"
            case .tooOld(let id, let oldest):
                return "events after \(id) are no longer kept (the oldest kept is number \(oldest)): some were missed"
            case .ahead(let id): return "Last-Event-ID \(id) was never sent by this run of lastsetd"
            }
        }
    }

    /// The decision.
    public enum Decision: Hashable, Sendable {
        /// No `Last-Event-ID`: the events from now on.
        case live
        /// The kept events numbered after `after`, in order, then the live ones (none when `after` is the newest).
        case replay(after: Int)
        /// A `gap` event first, then the live ones.
        case gap(Gap)
    }

    /// The decision for `lastEventID` (the header as sent; nil or empty: none) in run `run`, whose newest event is
    /// number `newest` (0: none yet) and whose oldest kept is `oldestKept` (nil: none kept).
    public static func decide(lastEventID: String?, run: String, newest: Int, oldestKept: Int?) -> Decision {
        guard let text = lastEventID?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return .live }
        guard let position = EventPosition(text) else { return .gap(.unreadable(text)) }
        guard position.run == run else { return .gap(.otherRun(text)) }
        guard position.sequence <= newest else { return .gap(.ahead(text)) }
        if position.sequence == newest { return .replay(after: newest) }
        // Every event after the id must still be kept: the first missed one is number sequence + 1.
        guard let oldestKept, position.sequence + 1 >= oldestKept else {
            return .gap(.tooOld(text, oldestKept: oldestKept ?? newest + 1))
        }
        return .replay(after: position.sequence)
    }
}
