/// A safe way out of a broken fleet state (`lastset fleet repair`), each audited.
public enum FleetRepairWay: String, Codable, Sendable, Hashable, CaseIterable {
    /// The hub's branch, holding commits a fetch refuses, is kept aside as `lastset-quarantine/<host>-<time>` and
    /// reset to this host's HEAD, in one atomic push, only if it still is what was checked.
    case quarantine
    /// This host's repository is moved aside and cloned afresh from the hub, the first sync checked as any fetch,
    /// this host's own files on the hub accepted only when they match its archive.
    case reclone
}
