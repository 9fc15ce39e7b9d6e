/// How a repair ended (`POST /v1/fleet/repair/quarantine` or `…/reclone`), as its audit record says.
public struct FleetRepairReport: Codable, Sendable, Hashable {
    public var way: FleetRepairWay
    public var result: FleetRepairResult
    /// What was done, or why not.
    public var message: String
    /// The hub's branch before and after.
    public var hubHeadBefore: String?
    public var hubHeadAfter: String?
    /// Quarantine: the hub branch the refused head was kept under (`lastset-quarantine/line-b-20261206T101500Z`).
    public var quarantineBranch: String?
    /// Quarantine: the commits taken off the branch (kept under `quarantineBranch`), `id author: subject`.
    public var quarantined: [String]?
    /// Re-clone: where the old repository was moved (kept; remove it once the new one works).
    public var movedAside: String?
    /// What the checks refused (a refused repair: nothing changed).
    public var problems: [FleetProblem]
    /// Re-clone: this host's own files on the hub accepted without a comparison (nothing here holds them any more).
    public var unchecked: [String]?
    /// Re-clone: the checked first sync.
    public var sync: SyncReport?

    /// A report of `way`.
    public init(way: FleetRepairWay, result: FleetRepairResult, message: String) {
        self.way = way
        self.result = result
        self.message = message
        problems = []
    }
}

/// How a repair ended.
public enum FleetRepairResult: String, Codable, Sendable, Hashable {
    /// Done: the next sync goes on from the repaired state.
    case done
    /// Not done, nothing changed: the state does not call for it, the hub moved since it was checked, the hub
    /// refused, or (re-clone) what the hub holds is refused.
    case refused
    /// It failed part-way; the message says what state it left (a re-clone puts the old repository back).
    case failed
}
