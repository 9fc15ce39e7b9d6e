/// A route's path as docs/API.md writes it, `/v1/pages/{page}/templates/{version}`: literal segments and named
/// parameters, each parameter one whole segment.
public struct RoutePattern: Hashable, Sendable, CustomStringConvertible {
    /// One segment of the path.
    public enum Segment: Hashable, Sendable {
        /// Matches this text only.
        case literal(String)
        /// Matches any one segment, given to the handler under this name.
        case parameter(String)
    }

    /// The segments, in order.
    public let segments: [Segment]

    /// The pattern of `text` (`{name}` is a parameter; empty segments are ignored, as in a request's path).
    public init(_ text: String) {
        segments = RoutePath.segments(text).map { part in
            part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2
                ? .parameter(String(part.dropFirst().dropLast())) : .literal(part)
        }
    }

    /// The pattern as written: `/v1/pages/{page}`.
    public var description: String {
        "/"
            + segments.map { segment in
                switch segment {
                case .literal(let text): return text
                case .parameter(let name): return "{\(name)}"
                }
            }.joined(separator: "/")
    }

    /// The parameters `path` (a request's segments) gives this pattern; nil when it does not match.
    public func match(_ path: [String]) -> RouteParameters? {
        guard path.count == segments.count else { return nil }
        var values: [String: String] = [:]
        for (segment, actual) in zip(segments, path) {
            switch segment {
            case .literal(let text): guard text == actual else { return nil }
            case .parameter(let name): values[name] = actual
            }
        }
        return RouteParameters(values)
    }
}

/// How a request's path is cut into segments for routing: on `/`, empty segments ignored (`/v1//pages/` is
/// `/v1/pages`); a `%2F` the server decoded splits too, so it can never reach a page id.
public enum RoutePath {
    /// The segments of `path`.
    public static func segments(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }
}

/// The values a request's path gives a route's parameters, by name.
public struct RouteParameters: Hashable, Sendable {
    /// Parameter name → the segment.
    public let values: [String: String]

    /// Parameters from their values.
    public init(_ values: [String: String] = [:]) { self.values = values }

    /// The segment given for `name`; nil when the route has no such parameter.
    public subscript(_ name: String) -> String? { values[name] }
}
