import LastsetFormats
import LastsetSystem

/// Settings of the optional TCP listener of the control API.
public struct TCPAPIConfig: Codable, Sendable, Hashable {
    /// `host:port`; off loopback only with `tls`.
    public var listen: String
    /// File holding one operator token in clear (the principal is `token:api`).
    public var tokenFile: String?
    /// Named tokens with roles, kept as hashes.
    public var tokens: [APITokenConfig]?
    /// HTTPS certificate and key; required when `listen` is not a loopback address.
    public var tls: TLSConfig?
    /// Further `host:port` names browsers reach the listener by (besides loopback and `listen`).
    public var hosts: [String]?

    /// Creates the TCP listener settings.
    public init(
        listen: String, tokenFile: String? = nil, tokens: [APITokenConfig]? = nil, tls: TLSConfig? = nil, hosts: [String]? = nil
    ) {
        self.listen = listen
        self.tokenFile = tokenFile
        self.tokens = tokens
        self.tls = tls
        self.hosts = hosts
    }

    /// Whether `host` (from a listen address, brackets optional) is a loopback address: 127.0.0.0/8, ::1 or localhost.
    public static func isLoopback(host: String) -> Bool {
        let h = HostPort.unbracketed(host)
        if h == "localhost" || h == "::1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
