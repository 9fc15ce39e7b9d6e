/// What a caller of the control API may do: `viewer` reads (dry runs and diffs included), `operator` also writes,
/// `administrator` also acknowledges a broken audit chain (docs/AUDIT-CHAIN.md).
public enum APIRole: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    /// Everything read-only: devices, pages, templates, jobs, audit, dry runs and diffs.
    case viewer
    /// Also capture, apply (writing replays) and import.
    case `operator`
    /// Also sign another person's change request (docs/CHANGE-CONTROL.md): an approval releases a protected write.
    /// Never their own. Members of `api.roles.approverGroups`, tokens with this role.
    case approver
    /// Also what only the host's administrator may do: acknowledge a break of the audit chain, repair the fleet
    /// (quarantine the hub's branch, re-clone the repository). Root on the Unix
    /// socket (without `api.roles`), members of `api.roles.administratorGroups`, tokens with this role.
    case administrator

    /// `viewer` < `operator` < `approver` < `administrator`: a role allows everything a lower one does.
    public static func < (lhs: APIRole, rhs: APIRole) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .viewer: return 0
        case .operator: return 1
        case .approver: return 2
        case .administrator: return 3
        }
    }
}
