import Foundation
import Glibc
import LastsetClient
import LastsetHTTP
import XCTest

final class TCPAuthTests: XCTestCase {
    private struct Who: Codable {
        var principal: String
        var peer: String
    }

    /// Starts a 127.0.0.1 listener on a kernel-chosen port whose handler requires the "ci" token.
    private func startTCPServer() throws -> (HTTPServer, UInt16) {
        let auth = LockedValue<HTTPAuth?>(nil)
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0)),
            handler: { request in
                guard let checker = auth.value else { return .error(503, code: "starting", message: "not ready") }
                switch checker.authorize(request) {
                case .denied(let response): return response
                case .allowed(let principal): return .json(200, Who(principal: principal.name, peer: request.peer.description))
                }
            })
        try server.start()
        let port = try XCTUnwrap(server.tcpPort)
        XCTAssertNotEqual(port, 0)
        auth.value = HTTPAuth(
            tokens: [
                .init(name: "ci", role: .operator, secret: "s3cret-token"), .init(name: "ops", role: .viewer, secret: "other"),
            ],
            allowedHosts: HTTPAuth.loopbackHosts(port: port), allowedOrigins: ["http://127.0.0.1:\(port)"])
        return (server, port)
    }

    func testValidTokenIsAccepted() throws {
        let (server, port) = try startTCPServer()
        defer { server.stop() }
        let client = HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: port), timeout: .seconds(5), bearerToken: "s3cret-token")
        let response = try client.send(method: "GET", path: "/v1/status")
        XCTAssertEqual(response.status, 200)
        let who = try response.decodeJSON(Who.self)
        XCTAssertEqual(who.principal, "token:ci")
        XCTAssertEqual(who.peer, "tcp 127.0.0.1")
    }

    func testMissingAndWrongTokensAreRefused() throws {
        let (server, port) = try startTCPServer()
        defer { server.stop() }
        let anonymous = HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: port), timeout: .seconds(5))
        let missing = try anonymous.send(method: "GET", path: "/v1/status")
        XCTAssertEqual(missing.status, 401)
        XCTAssertEqual(missing.header("WWW-Authenticate"), "Bearer")
        XCTAssertEqual(try missing.decodeJSON(HTTPErrorBody.self).error.code, "unauthorized")

        let wrong = HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: port), timeout: .seconds(5), bearerToken: "s3cret-tokeN")
        XCTAssertEqual(try wrong.send(method: "GET", path: "/v1/status").status, 401)
        let prefix = HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: port), timeout: .seconds(5), bearerToken: "s3cret")
        XCTAssertEqual(try prefix.send(method: "GET", path: "/v1/status").status, 401)
        let basic = try anonymous.send(method: "GET", path: "/v1/status", headers: ["Authorization": "Basic czNjcmV0LXRva2Vu"])
        XCTAssertEqual(basic.status, 401)
    }

    func testForeignHostAndOriginAreRefused() throws {
        let (server, port) = try startTCPServer()
        defer { server.stop() }
        let client = HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: port), timeout: .seconds(5), bearerToken: "s3cret-token")
        let rebound = try client.send(method: "GET", path: "/v1/status", headers: ["Host": "evil.example:\(port)"])
        XCTAssertEqual(rebound.status, 403)
        XCTAssertEqual(
            try rebound.decodeJSON(HTTPErrorBody.self).error,
            .init(code: "forbidden_host", message: "Host \"evil.example:\(port)\" is not accepted on this listener"))
        let crossSite = try client.send(method: "POST", path: "/v1/x", body: [], headers: ["Origin": "http://evil.example"])
        XCTAssertEqual(crossSite.status, 403)
        XCTAssertEqual(try crossSite.decodeJSON(HTTPErrorBody.self).error.code, "forbidden_origin")
        let sameOrigin = try client.send(method: "GET", path: "/v1/status", headers: ["Origin": "http://127.0.0.1:\(port)"])
        XCTAssertEqual(sameOrigin.status, 200)
        let localhost = try client.send(method: "GET", path: "/v1/status", headers: ["Host": "LOCALHOST:\(port)"])
        XCTAssertEqual(localhost.status, 200)
    }

    func testUnixPeerIsAnOperatorWithoutRoleMapping() {
        let auth = HTTPAuth(tokens: [], allowedHosts: [], accounts: { _, _ in UnixAccount(user: nil, groups: ["1000"]) })
        let request = HTTPRequest(method: "GET", path: "/", peer: .unix(uid: 1000, gid: 1000, pid: 5))
        XCTAssertEqual(auth.authorize(request), .allowed(.init(name: "uid:1000", role: .operator)))
        // Root is the host's administrator (with a role mapping, only by its groups: SessionAuthTests).
        let root = HTTPRequest(method: "GET", path: "/", peer: .unix(uid: 0, gid: 0, pid: 5))
        XCTAssertEqual(auth.authorize(root), .allowed(.init(name: "uid:0", role: .administrator)))
    }

    func testConstantTimeEquals() {
        let cases: [(String, String, Bool)] = [
            ("", "", true), ("abc", "abc", true), ("abc", "abd", false), ("abc", "ab", false), ("ab", "abc", false),
            ("", "a", false), (String(repeating: "z", count: 256), String(repeating: "z", count: 256), true),
        ]
        for (left, right, expected) in cases {
            XCTAssertEqual(HTTPAuth.constantTimeEquals(Array(left.utf8), Array(right.utf8)), expected, "\(left) vs \(right)")
        }
    }

    func testOversizedBodyOverTCPStillGets413() throws {
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), maxBodyBytes: 1024),
            handler: { _ in .text(200, "should not run") })
        try server.start()
        defer { server.stop() }
        let client = HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: try XCTUnwrap(server.tcpPort)), timeout: .seconds(5))
        for size in [2048, 300_000, 3_000_000] {
            let response = try client.send(method: "POST", path: "/v1/import", body: [UInt8](repeating: 0x42, count: size))
            XCTAssertEqual(response.status, 413, "size \(size)")
            XCTAssertEqual(try response.decodeJSON(HTTPErrorBody.self).error.code, "body_too_large")
        }
    }
}
