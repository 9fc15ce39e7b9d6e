import Foundation

/// One device page's conformance as polling last saw it (`GET /v1/conformance`).
public struct PageConformance: Codable, Sendable, Hashable {
    public var device: String
    public var pageId: String
    public var state: ConformanceState
    /// The version last applied (nil: never).
    public var applied: AppliedSummary?
    /// Registers holding another value than the applied template wrote (state drifted).
    public var drifted: [DriftedRegister]
    /// Since when the drift has been seen (first poll that showed it).
    public var since: Date?
    /// Why the state is unknown.
    public var reason: String?
    /// When the live values compared were read (nil: not polled yet).
    public var checkedAt: Date?

    /// Sets every field.
    public init(
        device: String, pageId: String, state: ConformanceState, applied: AppliedSummary? = nil,
        drifted: [DriftedRegister] = [], since: Date? = nil, reason: String? = nil, checkedAt: Date? = nil
    ) {
        self.device = device
        self.pageId = pageId
        self.state = state
        self.applied = applied
        self.drifted = drifted
        self.since = since
        self.reason = reason
        self.checkedAt = checkedAt
    }
}

/// What changed between two polls' conformance of one device page: what the poller logs (once per change).
public enum DriftChange: Sendable, Hashable {
    /// Nothing to log.
    case none
    /// Drift appeared, or its registers or values changed.
    case appeared([DriftedRegister])
    /// The page conforms again after a drift seen since `since`.
    case cleared(since: Date)
}

extension PageConformance {
    /// The next state after a poll's verdict, and what to log. Drift is remembered across unknown polls
    /// (an unreachable device has not cleared its drift): the same drift seen again is not logged twice,
    /// and only `conforms` clears it.
    public static func next(
        after previous: PageConformance?, verdict: ConformanceVerdict, device: String, pageId: String,
        applied: AppliedSummary?, at now: Date
    ) -> (PageConformance, DriftChange) {
        var state = PageConformance(
            device: device, pageId: pageId, state: .unknown, applied: applied, checkedAt: now)
        // The drift last seen (kept while unknown), and since when.
        let remembered = previous.flatMap { p in p.since.map { (p.drifted, $0) } }
        switch verdict {
        case .conforms:
            state.state = .conforms
            if let (_, since) = remembered { return (state, .cleared(since: since)) }
            return (state, .none)
        case .drifted(let registers):
            state.state = .drifted
            state.drifted = registers
            if let (old, since) = remembered {
                state.since = since
                if Self.sameDrift(old, registers) { return (state, .none) }
                return (state, .appeared(registers))
            }
            state.since = now
            return (state, .appeared(registers))
        case .unknown(let reason):
            state.reason = reason
            if let (old, since) = remembered {
                state.drifted = old
                state.since = since
            }
            return (state, .none)
        }
    }

    private static func sameDrift(_ a: [DriftedRegister], _ b: [DriftedRegister]) -> Bool {
        a.map { [$0.registerId, $0.liveData.lowercased()] } == b.map { [$0.registerId, $0.liveData.lowercased()] }
    }
}

extension PageConformance {
    /// What to report for a device page now, from its durable state and the last poll's verdict: an
    /// unverified page, a page never applied, an unpolled device, and a verdict older than the last apply
    /// are all `unknown`, each saying why.
    public static func report(
        device: String, pageId: String, polled: Bool, state: DevicePageState?, last: PageConformance?
    ) -> PageConformance {
        let applied = state?.applied?.summary
        var out = PageConformance(device: device, pageId: pageId, state: .unknown, applied: applied)
        if let mark = state?.unverified {
            out.reason = mark.summary
            return out
        }
        guard let applied else {
            out.reason = "never applied (as far as this daemon knows)"
            return out
        }
        guard polled else {
            out.reason = "not polled: `lastset diff \(pageId) --device \(device)` compares on request"
            return out
        }
        guard var last else {
            out.reason = "not polled yet"
            return out
        }
        guard last.applied == applied else {
            out.reason = "applied since the last poll; the next poll compares"
            out.checkedAt = last.checkedAt
            return out
        }
        last.applied = applied
        return last
    }
}
