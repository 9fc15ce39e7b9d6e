/// The control API's routes, each declared once with its method, path pattern, access and handler; requests are
/// matched against it (pure: the daemon's router supplies the handlers, the tests their own).
public struct RouteTable<Handler: Sendable>: Sendable {
    /// One route.
    public struct Route: Sendable {
        /// The method it answers.
        public var method: APIMethod
        /// The path it answers.
        public var pattern: RoutePattern
        /// Who may call it.
        public var access: RouteAccess
        /// The largest body it takes, when larger than the server's default (an upload).
        public var maxBodyBytes: Int?
        /// What answers it.
        public var handler: Handler

        /// A route from its parts; `path` as docs/API.md writes it (`/v1/pages/{page}`).
        public init(
            _ method: APIMethod, _ path: String, _ access: RouteAccess, maxBodyBytes: Int? = nil, _ handler: Handler
        ) {
            self.method = method
            self.pattern = RoutePattern(path)
            self.access = access
            self.maxBodyBytes = maxBodyBytes
            self.handler = handler
        }
    }

    /// What a request is, against the table.
    public enum Match: Sendable {
        /// The route answering the method on the path, and the path's parameters.
        case found(Route, RouteParameters)
        /// A known path with another method: the routes on the path (their methods, in table order, are the
        /// `Allow` header).
        case methodNotAllowed([Route])
        /// No route has the path.
        case notFound
    }

    /// Every route, in the order the table declares them.
    public let routes: [Route]

    /// A table of `routes`; the first route matching a method and path answers it.
    public init(_ routes: [Route]) { self.routes = routes }

    /// Matches a request: `method` as sent, `path` its segments (`RoutePath.segments`).
    public func match(method: String, path: [String]) -> Match {
        var onPath: [Route] = []
        for route in routes {
            guard let parameters = route.pattern.match(path) else { continue }
            if route.method.rawValue == method { return .found(route, parameters) }
            onPath.append(route)
        }
        return onPath.isEmpty ? .notFound : .methodNotAllowed(onPath)
    }
}

extension RouteTable.Match {
    /// The methods allowed on a known path (for 405's `Allow`), in table order; empty otherwise.
    public var allowedMethods: [String] {
        guard case .methodNotAllowed(let routes) = self else { return [] }
        var seen: [String] = []
        for route in routes where !seen.contains(route.method.rawValue) { seen.append(route.method.rawValue) }
        return seen
    }
}

extension RouteTable.Match {
    /// The role the request needs (nil: a session endpoint, which checks its caller itself). A route's role is
    /// its access (`dryRun`: the body reads as a dry run); a request no route answers needs
    /// `RouteAccess.unmatched`, except a wrong method on the session path (405 for anyone).
    public func requiredRole(method: String, dryRun: Bool) -> APIRole? {
        switch self {
        case .found(let route, _): return route.access.requiredRole(dryRun: dryRun)
        case .methodNotAllowed(let routes) where routes.allSatisfy({ $0.access == .session }): return nil
        case .methodNotAllowed, .notFound: return RouteAccess.unmatched(method: method)
        }
    }
}
