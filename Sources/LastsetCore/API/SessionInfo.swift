import Foundation

/// `GET/POST/DELETE /v1/session`: who the caller is, and for a browser session its CSRF token.
public struct SessionInfo: Codable, Sendable, Hashable {
    /// Whether the request carried a valid session or token.
    public var signedIn: Bool
    /// `token:NAME` or `uid:N(user)`.
    public var principal: String?
    /// The caller's role.
    public var role: APIRole?
    /// The token every state-changing request of this session must send in `X-CSRF-Token` (browser sessions only).
    public var csrfToken: String?
    /// When the session ends by itself (browser sessions only).
    public var expiresAt: Date?

    /// Creates the body.
    public init(signedIn: Bool, principal: String? = nil, role: APIRole? = nil, csrfToken: String? = nil, expiresAt: Date? = nil)
    {
        self.signedIn = signedIn
        self.principal = principal
        self.role = role
        self.csrfToken = csrfToken
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/session`: sign in with a token's secret.
public struct SignInRequest: Codable, Sendable, Hashable {
    /// The token's secret, as typed into the console's password field.
    public var token: String
    /// Creates the body.
    public init(token: String) { self.token = token }
}
