/// Who may call a route (docs/API.md, "Roles"): declared with the route in the router's one table.
public enum RouteAccess: Sendable, Hashable {
    /// The session endpoints: no role, for they establish one; the handler checks the caller itself.
    case session
    /// Reading: every role.
    case viewer
    /// Writing or changing anything: the operator role.
    case `operator`
    /// An apply: the operator role, but a viewer's dry run (the body's `"dryRun": true`) writes nothing.
    case operatorUnlessDryRun
    /// Signing a change request: the approver role (docs/CHANGE-CONTROL.md).
    case approver
    /// What only the host's administrator may do (acknowledge a broken audit chain).
    case administrator

    /// The role a request needs; nil for the session endpoints. `dryRun`: the body reads as a dry run.
    public func requiredRole(dryRun: Bool) -> APIRole? {
        switch self {
        case .session: return nil
        case .viewer: return .viewer
        case .operator: return .operator
        case .operatorUnlessDryRun: return dryRun ? .viewer : .operator
        case .approver: return .approver
        case .administrator: return .administrator
        }
    }

    /// Whether the role depends on the request body (the router reads it before the access check).
    public var readsDryRun: Bool { self == .operatorUnlessDryRun }

    /// The role a request no route answers needs (it gets 404 or 405): reading (GET, HEAD) needs `viewer`,
    /// any other method `operator` — closed by default, so a viewer probing with other methods learns nothing.
    public static func unmatched(method: String) -> APIRole {
        method == "GET" || method == "HEAD" ? .viewer : .operator
    }

    /// The access as docs/API.md's route index writes it.
    public var documented: String {
        switch self {
        case .session: return "none"
        case .viewer: return "viewer"
        case .operator: return "operator"
        case .operatorUnlessDryRun: return "operator; viewer for a dry run"
        case .approver: return "approver"
        case .administrator: return "administrator"
        }
    }
}
