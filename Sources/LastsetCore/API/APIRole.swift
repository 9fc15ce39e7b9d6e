/// What a caller of the control API may do: `viewer` reads (dry runs and diffs included), `operator` also writes.
public enum APIRole: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    /// Everything read-only: devices, pages, templates, jobs, audit, dry runs and diffs.
    case viewer
    /// Also capture, apply (writing replays) and import.
    case `operator`

    /// `viewer` < `operator`: a role allows everything a lower one does.
    public static func < (lhs: APIRole, rhs: APIRole) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .viewer: return 0
        case .operator: return 1
        }
    }
}
