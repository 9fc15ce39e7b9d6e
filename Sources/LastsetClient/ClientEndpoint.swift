import LastsetSystem

/// Where the `lastset` CLI reaches the daemon's API.
public enum ClientEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// The default API socket of a systemd-run daemon.
    public static let defaultSocket = ClientEndpoint.unix(path: "/run/lastset/api.sock")

    /// A Unix stream socket path.
    case unix(path: String)
    /// A TCP address (normally 127.0.0.1).
    case tcp(host: String, port: UInt16)

    /// Parses "/path/api.sock", "unix:/path/api.sock" or "http://127.0.0.1:8502".
    public init(parsing text: String) throws(HTTPClientError) {
        if text.hasPrefix("/") {
            self = .unix(path: text)
        } else if text.hasPrefix("unix:"), text.count > 5 {
            self = .unix(path: String(text.dropFirst(5)))
        } else if text.hasPrefix("http://") {
            var rest = Substring(text.dropFirst(7))
            if rest.hasSuffix("/") { rest = rest.dropLast() }
            let parts: HostPort
            do {
                parts = try HostPort(parsing: rest)
            } catch {
                throw .invalidEndpoint(text, because: error.description)
            }
            guard !parts.host.isEmpty else { throw .invalidEndpoint(text, because: "no host before ':'") }
            guard let port = UInt16(parts.port) else {
                throw .invalidEndpoint(text, because: "port \"\(parts.port)\" is not a number up to 65535")
            }
            self = .tcp(host: parts.host, port: port)
        } else {
            throw .invalidEndpoint(text)
        }
    }

    /// "/run/lastset/api.sock" or "127.0.0.1:8502".
    public var description: String {
        switch self {
        case .unix(let path): return path
        case .tcp(let host, let port): return HostPort(host: host, port: String(port)).description
        }
    }
}
