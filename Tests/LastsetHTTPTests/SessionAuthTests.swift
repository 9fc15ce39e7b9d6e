import Foundation
import LastsetCore
import LastsetHTTP
import XCTest

/// HTTPAuth's decisions for roles, hashed tokens, sessions, Origin and CSRF, table by table (no server needed).
final class SessionAuthTests: XCTestCase {
    private let host = "127.0.0.1:8502"

    private func auth(sessions: SessionStore = SessionStore(), secure: Bool = false, tokens: [HTTPAuth.Token]? = nil)
        -> HTTPAuth
    {
        HTTPAuth(
            tokens: tokens ?? [
                .init(name: "alice", role: .operator, secret: "alice-secret-0123456789"),
                HTTPAuth.Token(
                    name: "victor", role: .viewer,
                    // printf %s victor-secret-0123456789 | sha256sum
                    sha256Hex: "027c71a191f4251f97b7a6d0a3c33082a6fac7bfc47aa94065278848c5f8781c")!,
                .init(name: "vera", role: .viewer, secret: "vera-secret-0123456789"),
            ], allowedHosts: HTTPAuth.loopbackHosts(port: 8502), secure: secure, sessions: sessions)
    }

    private func request(_ method: String, _ headers: [(String, String)]) -> HTTPRequest {
        HTTPRequest(
            method: method, path: "/v1/pages", headers: HTTPHeaders([("Host", host)] + headers), peer: .tcp(address: "127.0.0.1"))
    }

    private func code(_ decision: HTTPAuth.Decision) -> String {
        switch decision {
        case .allowed(let p): return "allowed \(p.name) \(p.role.rawValue)"
        case .denied(let r):
            let body = try? JSONDecoder().decode(HTTPErrorBody.self, from: Data(r.body))
            return "\(r.status) \(body?.error.code ?? "?")"
        }
    }

    func testTokenHashMatchesSha256sum() throws {
        let token = try XCTUnwrap(
            HTTPAuth.Token(
                name: "t", role: .viewer, sha256Hex: "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"))
        XCTAssertEqual(token, HTTPAuth.Token(name: "t", role: .viewer, secret: ""))
        XCTAssertNil(HTTPAuth.Token(name: "t", role: .viewer, sha256Hex: "e3b0"))
        XCTAssertNil(HTTPAuth.Token(name: "t", role: .viewer, sha256Hex: String(repeating: "g", count: 64)))
    }

    func testBearerTokensCarryTheirRoles() {
        let a = auth()
        let cases: [([(String, String)], String)] = [
            ([("Authorization", "Bearer alice-secret-0123456789")], "allowed token:alice operator"),
            ([("Authorization", "Bearer vera-secret-0123456789")], "allowed token:vera viewer"),
            ([("Authorization", "Bearer victor-secret-0123456789")], "allowed token:victor viewer"),
            ([("Authorization", "Bearer vera-secret-012345678")], "401 unauthorized"),
            ([("Authorization", "Basic dmVyYQ==")], "401 unauthorized"),
            ([], "401 unauthorized"),
            ([("Authorization", "Bearer alice-secret-0123456789"), ("Origin", "http://evil.example")], "403 forbidden_origin"),
            (
                [("Authorization", "Bearer alice-secret-0123456789"), ("Origin", "http://127.0.0.1:8502")],
                "allowed token:alice operator"
            ),
            // A plain-HTTP listener's own origin is http://, not https://.
            (
                [("Authorization", "Bearer alice-secret-0123456789"), ("Origin", "https://127.0.0.1:8502")],
                "403 forbidden_origin"
            ),
        ]
        for (headers, expected) in cases {
            XCTAssertEqual(code(a.authorize(request("POST", headers))), expected, "\(headers)")
        }
    }

    func testSessionNeedsOriginAndCSRFForChanges() throws {
        let sessions = SessionStore()
        let a = auth(sessions: sessions)
        let signIn = request("POST", [("Origin", "http://127.0.0.1:8502")])
        guard case .success(let (session, cookie)) = a.signIn(signIn, secret: "alice-secret-0123456789") else {
            return XCTFail("sign-in refused")
        }
        XCTAssertTrue(cookie.hasPrefix("lastset_session=\(session.id); Path=/; Max-Age=28800; HttpOnly; SameSite=Strict"))
        XCTAssertFalse(cookie.contains("Secure"))
        let c = ("Cookie", "other=1; lastset_session=\(session.id)")
        let cases: [(String, [(String, String)], String)] = [
            ("GET", [c], "allowed token:alice operator"),
            ("GET", [c, ("Origin", "http://localhost:8502")], "allowed token:alice operator"),
            (
                "POST", [c, ("Origin", "http://127.0.0.1:8502"), ("X-CSRF-Token", session.csrfToken)],
                "allowed token:alice operator"
            ),
            ("POST", [c, ("Origin", "http://127.0.0.1:8502")], "403 csrf_failed"),
            ("POST", [c, ("Origin", "http://127.0.0.1:8502"), ("X-CSRF-Token", session.csrfToken + "x")], "403 csrf_failed"),
            ("DELETE", [c, ("X-CSRF-Token", session.csrfToken)], "403 forbidden_origin"),
            ("POST", [c, ("Origin", "http://127.0.0.1:9999"), ("X-CSRF-Token", session.csrfToken)], "403 forbidden_origin"),
            ("POST", [c, ("Origin", "null"), ("X-CSRF-Token", session.csrfToken)], "403 forbidden_origin"),
            ("GET", [("Cookie", "lastset_session=forged")], "401 unauthorized"),
        ]
        for (method, headers, expected) in cases {
            XCTAssertEqual(code(a.authorize(request(method, headers))), expected, "\(method) \(headers)")
        }
        XCTAssertTrue(sessions.end(session.id))
        XCTAssertEqual(code(a.authorize(request("GET", [c]))), "401 unauthorized")
    }

    func testWrongSecretOpensNoSessionAndForeignOriginCannotSignIn() {
        let sessions = SessionStore()
        let a = auth(sessions: sessions)
        guard case .failure(let wrong) = a.signIn(request("POST", []), secret: "nope") else { return XCTFail("signed in") }
        XCTAssertEqual(wrong.response.status, 401)
        guard
            case .failure(let foreign) = a.signIn(
                request("POST", [("Origin", "http://evil.example")]), secret: "alice-secret-0123456789")
        else { return XCTFail("signed in from a foreign origin") }
        XCTAssertEqual(foreign.response.status, 403)
        XCTAssertEqual(sessions.count, 0)
    }

    func testRevokedTokenEndsItsSessionsAndTLSCookiesAreSecure() {
        let sessions = SessionStore()
        let before = auth(sessions: sessions, secure: true)
        guard case .success(let (session, cookie)) = before.signIn(request("POST", []), secret: "vera-secret-0123456789") else {
            return XCTFail("sign-in refused")
        }
        XCTAssertTrue(cookie.hasSuffix("; Secure"))
        let c = ("Cookie", "lastset_session=\(session.id)")
        XCTAssertEqual(code(before.authorize(request("GET", [c]))), "allowed token:vera viewer")
        // The reload drops "vera": her session ends with it; a same-named token with another secret does not revive it.
        let after = auth(sessions: sessions, tokens: [.init(name: "vera", role: .operator, secret: "new-secret-0123456789")])
        XCTAssertEqual(code(after.authorize(request("GET", [c]))), "401 unauthorized")
        XCTAssertNil(sessions.lookup(session.id))
    }

    func testSessionsExpire() {
        let sessions = SessionStore(lifetime: .seconds(60))
        let a = auth(sessions: sessions)
        let start = Date()
        guard case .success(let (session, _)) = a.signIn(request("POST", []), secret: "vera-secret-0123456789", now: start) else {
            return XCTFail("sign-in refused")
        }
        let c = ("Cookie", "lastset_session=\(session.id)")
        XCTAssertEqual(code(a.authorize(request("GET", [c]), now: start.addingTimeInterval(59))), "allowed token:vera viewer")
        XCTAssertEqual(code(a.authorize(request("GET", [c]), now: start.addingTimeInterval(61))), "401 unauthorized")
    }

    func testUnixRolesFollowGroups() {
        let roles = APIRolesConfig(
            operatorGroups: ["lastset-ops"], viewerGroups: ["lastset-view", "staff"], administratorGroups: ["lastset-admin"])
        let cases: [(UnixAccount, String)] = [
            (UnixAccount(user: "op", groups: ["lastset-admin", "lastset-ops"]), "allowed uid:1001(op) administrator"),
            (UnixAccount(user: "op", groups: ["op", "lastset-ops", "staff"]), "allowed uid:1001(op) operator"),
            (UnixAccount(user: "op", groups: ["staff"]), "allowed uid:1001(op) viewer"),
            (UnixAccount(user: "op", groups: ["op"]), "403 no_role"),
            (UnixAccount(user: nil, groups: ["1001"]), "403 no_role"),
        ]
        for (account, expected) in cases {
            let a = HTTPAuth(tokens: [], allowedHosts: [], unixRoles: roles, accounts: { _, _ in account })
            let r = HTTPRequest(method: "GET", path: "/v1/pages", peer: .unix(uid: 1001, gid: 1001, pid: 9))
            XCTAssertEqual(code(a.authorize(r)), expected, "\(account)")
        }
    }

    func testRealAccountLookupOfThisProcess() {
        let account = UnixAccount.lookup(uid: getuid(), gid: getgid())
        XCTAssertNotNil(account.user)
        XCTAssertFalse(account.groups.isEmpty)
        if getuid() == 0 {
            XCTAssertEqual(account.user, "root")
            XCTAssertTrue(account.groups.contains("root"))
        }
    }
}
