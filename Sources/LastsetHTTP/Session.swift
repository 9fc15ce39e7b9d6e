import Foundation
import LastsetCore

/// A browser session opened by signing in with a token (`POST /v1/session`).
public struct Session: Sendable, Equatable {
    /// The random id the session cookie carries.
    public let id: String
    /// The random token every state-changing request of this session must send in `X-CSRF-Token`.
    public let csrfToken: String
    /// The name of the token signed in with.
    public let tokenName: String
    /// The token's role when the session was opened (requests use the token's current role).
    public let role: APIRole
    /// The token's digest, so a token replaced under the same name by a reload ends the session.
    let digest: [UInt8]
    /// When the session was opened.
    public let createdAt: Date
    /// When the session ends by itself.
    public let expiresAt: Date
}
