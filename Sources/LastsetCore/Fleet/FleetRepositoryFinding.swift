/// One check of this host's fleet repository.
public struct FleetRepositoryFinding: Codable, Sendable, Hashable {
    public var check: FleetRepositoryCheck
    public var ok: Bool
    /// What was found (the failure's message, or what is fine).
    public var detail: String

    /// A finding.
    public init(check: FleetRepositoryCheck, ok: Bool, detail: String) {
        self.check = check
        self.ok = ok
        self.detail = detail
    }
}

/// What the doctor checks in this host's repository.
public enum FleetRepositoryCheck: String, Codable, Sendable, Hashable, CaseIterable {
    /// The data directory's registered host is the configured one (`<data>/fleet/.git/lastset-host`).
    case host
    /// Every object reachable from the refs is present and readable (`git fsck --connectivity-only`).
    case objects
    /// HEAD is the configured branch and names a commit (or the repository has no commit yet).
    case branch
    /// The hub's URL is the configured `remote`.
    case remote
}
