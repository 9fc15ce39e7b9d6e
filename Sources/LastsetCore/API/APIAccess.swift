/// The role each `/v1` request needs: the server's one table of who may do what (docs/API.md, "Roles").
public enum APIAccess {
    /// The role `method` on `route` (the path segments after `/v1`) needs. `dryRun` is the apply body's flag:
    /// a dry run writes nothing, so a viewer may ask for one.
    ///
    /// Reading (GET, HEAD) needs `viewer`; the session endpoints need no role (they establish one); every
    /// other request needs `operator` unless listed here as harmless, so a route added later is closed by default.
    public static func requiredRole(method: String, route: [String], dryRun: Bool = false) -> APIRole? {
        if route.first == "session" { return nil }
        switch method {
        case "GET", "HEAD": return .viewer
        case "POST" where route.count == 3 && route[0] == "pages" && route[2] == "apply" && dryRun: return .viewer
        // A whole-machine dry run writes nothing either.
        case "POST" where route.count == 3 && route[0] == "devices" && route[2] == "apply" && dryRun: return .viewer
        default: return .operator
        }
    }
}
