import Foundation
import LastsetCore
import LastsetFormats

/// Access checks for the API: who is calling, with which role, and whether a browser request is what it claims.
///
/// Unix-socket peers are named by their uid and get a role from their groups (or `operator` for every peer
/// when no role mapping is configured: the socket's mode is then the only check). TCP clients need an
/// allowed Host, an allowed (or absent) Origin, and either a bearer token or a session cookie; a session's
/// state-changing request must also carry the daemon's own Origin and the session's CSRF token. Host and
/// Origin checks stop DNS rebinding and cross-site requests from a browser on the same host.
public struct HTTPAuth: Sendable {
    /// A named API token with its role; only the SHA-256 of the secret is kept.
    public struct Token: Sendable, Equatable {
        /// The token's name; the caller is `token:NAME`.
        public let name: String
        /// What the token's holder may do.
        public let role: APIRole
        /// SHA-256 of the secret.
        let digest: [UInt8]

        /// A token from its secret (hashed here, the secret is not kept).
        public init(name: String, role: APIRole, secret: String) {
            self.name = name
            self.role = role
            var hash = SHA256()
            hash.update(Array(secret.utf8))
            digest = hash.finalize()
        }

        /// A token from the hex SHA-256 of its secret; nil when `sha256Hex` is not 64 hex digits.
        public init?(name: String, role: APIRole, sha256Hex: String) {
            guard sha256Hex.utf8.count == 64, let bytes = [UInt8](hexString: sha256Hex.uppercased()), bytes.count == 32 else {
                return nil
            }
            self.name = name
            self.role = role
            digest = bytes
        }
    }

    /// An authenticated caller.
    public struct Principal: Sendable, Equatable {
        /// How the caller is named in jobs, templates and audit records: `token:NAME` or `uid:N(user)`.
        public var name: String
        /// What the caller may do.
        public var role: APIRole
        /// The browser session the request came with, when it was authenticated by a session cookie.
        public var sessionId: String?

        /// Creates a principal.
        public init(name: String, role: APIRole, sessionId: String? = nil) {
            self.name = name
            self.role = role
            self.sessionId = sessionId
        }
    }

    /// The outcome of `authorize(_:)`.
    public enum Decision: Sendable, Equatable {
        /// Allowed, as this principal (its role still has to allow the route).
        case allowed(Principal)
        /// Refused; send this response (401 or 403 with a JSON error) as is.
        case denied(HTTPResponse)
    }

    /// The session cookie's name.
    public static let cookieName = "lastset_session"
    /// The request header carrying a session's CSRF token.
    public static let csrfHeader = "X-CSRF-Token"

    /// The accepted tokens.
    public let tokens: [Token]
    /// Accepted Host header values, lower-cased, e.g. "127.0.0.1:8502".
    public let allowedHosts: Set<String>
    /// Accepted Origin header values, lower-cased: by default the listener's own origins (scheme + allowed host).
    public let allowedOrigins: Set<String>
    /// Whether the TCP listener speaks TLS (session cookies are then `Secure`).
    public let secure: Bool
    /// Unix-socket roles by group; nil: every peer that can connect is an operator.
    public let unixRoles: APIRolesConfig?
    /// The browser sessions; shared across reloads so a SIGHUP does not sign everyone out.
    public let sessions: SessionStore
    /// Looks up a Unix peer's user and groups (replaceable in tests).
    let accounts: @Sendable (_ uid: UInt32, _ gid: UInt32) -> UnixAccount

    /// Creates the checker; hosts and origins are compared case-insensitively. Without `allowedOrigins`, the
    /// origins are `http(s)://HOST` for every allowed host.
    public init(
        tokens: [Token], allowedHosts: Set<String>, allowedOrigins: Set<String>? = nil, secure: Bool = false,
        unixRoles: APIRolesConfig? = nil, sessions: SessionStore = SessionStore(),
        accounts: @escaping @Sendable (_ uid: UInt32, _ gid: UInt32) -> UnixAccount = UnixAccount.lookup
    ) {
        self.tokens = tokens
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        let scheme = secure ? "https" : "http"
        self.allowedOrigins = Set((allowedOrigins ?? Set(allowedHosts.map { "\(scheme)://\($0)" })).map { $0.lowercased() })
        self.secure = secure
        self.unixRoles = unixRoles
        self.sessions = sessions
        self.accounts = accounts
    }

    /// The Host values a loopback listener on `port` is reached by: 127.0.0.1, localhost and [::1].
    public static func loopbackHosts(port: UInt16) -> Set<String> {
        ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
    }

    /// Decides whether `request` may proceed, and as whom.
    public func authorize(_ request: HTTPRequest, now: Date = Date()) -> Decision {
        if case .unix(let uid, let gid, _) = request.peer { return unixPrincipal(uid: uid, gid: gid) }
        if let refusal = browserContextRefusal(request) { return .denied(refusal) }
        if let header = request.headers["Authorization"] {
            guard let presented = Self.bearerToken(header) else {
                return .denied(Self.unauthorized("the Authorization header is not \"Bearer <token>\"", invalid: true))
            }
            guard let token = match(presented) else {
                return .denied(Self.unauthorized("the bearer token is not valid", invalid: true))
            }
            return .allowed(Principal(name: "token:\(token.name)", role: token.role))
        }
        guard let id = Self.cookie(Self.cookieName, in: request.headers["Cookie"]) else {
            return .denied(Self.unauthorized("a bearer token or a session (POST /v1/session) is required", invalid: false))
        }
        guard let session = sessions.lookup(id, now: now) else {
            return .denied(.error(401, code: .unauthorized, message: "the session has ended or expired; sign in again"))
        }
        // A token revoked by a reload ends every session opened with it.
        guard let token = tokens.first(where: { $0.name == session.tokenName && $0.digest == session.digest }) else {
            sessions.end(id)
            return .denied(
                .error(401, code: .unauthorized, message: "the token \"\(session.tokenName)\" of this session was revoked"))
        }
        if !Self.isSafe(request.method) {
            guard request.headers["Origin"] != nil else {
                return .denied(
                    .error(
                        403, code: .forbiddenOrigin,
                        message: "a browser request that changes state must carry the console's Origin"))
            }
            let presented = Array((request.headers[Self.csrfHeader] ?? "").utf8)
            guard Self.constantTimeEquals(Array(session.csrfToken.utf8), presented) else {
                return .denied(
                    .error(
                        403, code: .csrfFailed,
                        message: "the \(Self.csrfHeader) header is missing or does not match this session"))
            }
        }
        return .allowed(Principal(name: "token:\(token.name)", role: token.role, sessionId: id))
    }

    /// Signs in with a token's secret: checks Host and Origin, opens a session and returns it with the
    /// `Set-Cookie` value to send; nil with the refusal when the secret matches no token.
    public func signIn(_ request: HTTPRequest, secret: String, now: Date = Date()) -> Result<(Session, String), HTTPError> {
        if case .unix = request.peer {
            return .failure(HTTPError(.error(400, code: .noSessions, message: "sessions are for the TCP listener's browsers")))
        }
        if let refusal = browserContextRefusal(request) { return .failure(HTTPError(refusal)) }
        guard let token = match(Array(secret.utf8)) else {
            return .failure(HTTPError(.error(401, code: .unauthorized, message: "the token is not valid")))
        }
        let session = sessions.create(tokenName: token.name, role: token.role, digest: token.digest, now: now)
        return .success((session, sessionCookie(session.id, maxAge: Int(sessions.lifetime.components.seconds))))
    }

    /// The `Set-Cookie` value that carries a session (or, with `maxAge` 0, removes it from the browser).
    public func sessionCookie(_ id: String, maxAge: Int) -> String {
        "\(Self.cookieName)=\(id); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// Compares two byte strings in time that depends only on their lengths, not on where they differ.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count) | (a.count == b.count ? 0 : 1)
        let count = max(a.count, b.count)
        for index in 0..<count {
            let left = index < a.count ? a[index] : 0
            let right = index < b.count ? b[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }

    // MARK: helpers

    private func unixPrincipal(uid: UInt32, gid: UInt32) -> Decision {
        let account = accounts(uid, gid)
        let name = "uid:\(uid)" + (account.user.map { "(\($0))" } ?? "")
        // Without a role mapping every peer of the socket is an operator, and root the host's administrator; with
        // one, roles come from the groups only (list `root` in administratorGroups to keep it).
        guard let roles = unixRoles else { return .allowed(Principal(name: name, role: uid == 0 ? .administrator : .operator)) }
        let groups = Set(account.groups)
        if !groups.isDisjoint(with: roles.administratorGroups ?? []) {
            return .allowed(Principal(name: name, role: .administrator))
        }
        if !groups.isDisjoint(with: roles.approverGroups ?? []) { return .allowed(Principal(name: name, role: .approver)) }
        if !groups.isDisjoint(with: roles.operatorGroups ?? []) { return .allowed(Principal(name: name, role: .operator)) }
        if !groups.isDisjoint(with: roles.viewerGroups ?? []) { return .allowed(Principal(name: name, role: .viewer)) }
        return .denied(
            .error(
                403, code: .noRole,
                message:
                    "\(name) is in none of the groups api.roles names (groups: \(account.groups.sorted().joined(separator: ", ")))"
            ))
    }

    /// 403 `forbidden_host` when a TCP request's Host is not one this listener is reached by (DNS rebinding).
    public func hostRefusal(_ request: HTTPRequest) -> HTTPResponse? {
        let host = request.headers["Host"] ?? ""
        guard allowedHosts.contains(host.lowercased()) else {
            return .error(403, code: .forbiddenHost, message: "Host \"\(host)\" is not accepted on this listener")
        }
        return nil
    }

    /// The Host and Origin checks every TCP request passes first; nil when both are fine.
    private func browserContextRefusal(_ request: HTTPRequest) -> HTTPResponse? {
        if let refusal = hostRefusal(request) { return refusal }
        if let origin = request.headers["Origin"], !allowedOrigins.contains(origin.lowercased()) {
            return .error(403, code: .forbiddenOrigin, message: "Origin \"\(origin)\" is not accepted")
        }
        return nil
    }

    /// The token whose digest matches `secret`; every token is compared, without an early exit, so timing
    /// does not reveal which one nearly matched.
    private func match(_ secret: [UInt8]) -> Token? {
        var hash = SHA256()
        hash.update(secret)
        let digest = hash.finalize()
        var found: Token?
        for token in tokens where Self.constantTimeEquals(token.digest, digest) && found == nil { found = token }
        return found
    }

    private static func isSafe(_ method: String) -> Bool { method == "GET" || method == "HEAD" }

    private static func unauthorized(_ message: String, invalid: Bool) -> HTTPResponse {
        var response = HTTPResponse.error(401, code: .unauthorized, message: message)
        response.headers["WWW-Authenticate"] = invalid ? "Bearer error=\"invalid_token\"" : "Bearer"
        return response
    }

    private static func bearerToken(_ header: String) -> [UInt8]? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: [" ", "\t"])
        return token.isEmpty ? nil : Array(token.utf8)
    }

    /// The value of cookie `name` in a `Cookie` header (`a=1; b=2`).
    static func cookie(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: [" ", "\t"]) == name[...] {
                let value = parts[1].trimmingCharacters(in: [" ", "\t"])
                return value.isEmpty ? nil : String(value)
            }
        }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> Substring {
        var result = self
        while let first = result.first, set.contains(first) { result = result.dropFirst() }
        while let last = result.last, set.contains(last) { result = result.dropLast() }
        return result
    }
}
