/// A `host:port` text split in two — `[::1]:8502` for an IPv6 host — by the one rule the config's endpoints, the API's
/// listen address, the CLI's `http://` endpoint and the simulator's `--tcp` share. Which hosts and ports each accepts
/// is its own rule, applied to the parts.
public struct HostPort: Sendable, Hashable, CustomStringConvertible {
    /// The host, without the brackets of an IPv6 literal.
    public var host: String
    /// The port as written.
    public var port: String

    /// A host and a port.
    public init(host: String, port: String) {
        self.host = host
        self.port = port
    }

    /// Splits `text`: `[host]:port` when it starts with `[`, else at its last `:` (so `::1:502` is host `::1`).
    public init(parsing text: some StringProtocol) throws(HostPortError) {
        let text = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw HostPortError(text: String(text), reason: .unclosedBracket) }
            let after = text[text.index(after: close)...]
            guard after.hasPrefix(":") else { throw HostPortError(text: String(text), reason: .missingPort) }
            host = String(text[text.index(after: text.startIndex)..<close])
            port = String(after.dropFirst())
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw HostPortError(text: String(text), reason: .missingPort) }
            host = String(text[..<colon])
            port = String(text[text.index(after: colon)...])
        }
    }

    /// `host:port`, the host in brackets when it holds a colon (IPv6).
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// `host` without the brackets of an IPv6 literal (`[::1]` → `::1`); any other host as it is.
    public static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}
