import Foundation

/// How a fleet sync ended.
public enum SyncResult: String, Codable, Sendable, Hashable {
    /// Fetched, merged what was valid, pushed what was local.
    case ok
    /// The hub did not answer (in time): nothing came in or went out; local work goes on.
    case offline
    /// The hub holds something this host must not use (unsigned or tampered commit, bad checksum,
    /// a rewritten version): nothing of it was merged.
    case refused
    /// Something else failed (local git error, push rejected repeatedly).
    case failed
}

/// `POST /v1/sync`, and the last sync in health: what came in and what went out.
public struct SyncReport: Codable, Sendable, Hashable {
    public var startedAt: Date
    public var finishedAt: Date
    public var result: SyncResult
    /// Why, when not ok.
    public var message: String?
    /// Commits that came in from the hub.
    public var commitsIn: Int
    /// Template versions that came in (`page/id`).
    public var templatesIn: [String]
    /// Audit records of other hosts that came in.
    public var auditRecordsIn: Int
    /// Commits that went out to the hub.
    public var commitsOut: Int
    /// Template versions of this host that went out (`page/id`).
    public var templatesOut: [String]
    /// Audit records of this host that went out.
    public var auditRecordsOut: Int
    /// What was refused, path by path.
    public var refused: [FleetRefusal]
    /// Versions that came in and were archived (they are history) but do not apply to this host's page:
    /// `page/id: why` (nil when none).
    public var notApplicable: [String]?
    /// Versions removed here by another host's delete record (its tombstone), each as `FleetRecord.summary`
    /// (nil when none).
    public var deleted: [String]?
    /// Promote records of other hosts that came in, each as `FleetRecord.summary` (nil when none).
    public var promoted: [String]?
    /// Commits this host has that the hub has not (after the sync), when known.
    public var ahead: Int?
    /// Commits the hub has that this host has not merged, when known.
    public var behind: Int?

    /// An empty report of a sync starting now.
    public init(startedAt: Date = Date()) {
        self.startedAt = startedAt
        finishedAt = startedAt
        result = .ok
        commitsIn = 0
        templatesIn = []
        auditRecordsIn = 0
        commitsOut = 0
        templatesOut = []
        auditRecordsOut = 0
        refused = []
    }
}
