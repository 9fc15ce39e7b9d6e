import LastsetFormats

/// One named API token of the TCP listener, kept as the SHA-256 of its secret (never the secret itself).
public struct APITokenConfig: Codable, Sendable, Hashable {
    /// The token's name; the caller is `token:NAME` in jobs, templates and audit records.
    public var name: String
    /// What the token's holder may do.
    public var role: APIRole
    /// Lower-case hex SHA-256 of the token's secret (`printf %s "$TOKEN" | sha256sum`).
    public var sha256: String

    /// Creates a token entry.
    public init(name: String, role: APIRole, sha256: String) {
        self.name = name
        self.role = role
        self.sha256 = sha256
    }
}
