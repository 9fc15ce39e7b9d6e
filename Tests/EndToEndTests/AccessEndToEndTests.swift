import Foundation
import Glibc
import LastsetClient
import LastsetCore
import LastsetFormats
import TestSupport
import XCTest

/// Roles, named tokens, their revocation by SIGHUP, Unix roles by group and TLS, against the real `lastsetd`.
final class AccessEndToEndTests: XCTestCase {
    private var dirs: [URL] = []

    override func tearDown() {
        for d in dirs { try? FileManager.default.removeItem(at: d) }
        dirs = []
    }

    static let operatorSecret = "olga-operator-secret-0123456789"
    static let viewerSecret = "vic-viewer-secret-0123456789"

    /// The hex SHA-256 of a token, as `printf %s TOKEN | sha256sum` prints it.
    static func sha256(_ text: String) -> String { SHA256.hex(Array(text.utf8)) }

    private func reference() throws -> PymodbusPeer {
        let p = try pymodbusPeer(DaemonEndToEndTests.reference)
        return p
    }

    private func tempDir() throws -> URL {
        let d = try TestPaths.temporaryDirectory(prefix: "access")
        dirs.append(d)
        return d
    }

    private func config(api: String, port: Int) -> String {
        """
        { version: 1,
          api: \(api),
          devices: [ { id: "press-a", endpoint: "tcp://127.0.0.1:\(port)", unit: 1, pages: ["heating"] } ],
        \(DaemonEndToEndTests.pages)
        }
        """
    }

    private func tokens(viewer: Bool = true) -> String {
        "[ { name: \"olga\", role: \"operator\", sha256: \"\(Self.sha256(Self.operatorSecret))\" }"
            + (viewer ? ", { name: \"vic\", role: \"viewer\", sha256: \"\(Self.sha256(Self.viewerSecret))\" }" : "") + " ]"
    }

    private func errorCode(_ r: HTTPClientResponse) -> String {
        (try? JSONDecoder().decode(ErrorBody.self, from: Data(r.body)).error.code) ?? "status \(r.status): \(r.text)"
    }

    private struct ErrorBody: Decodable {
        struct Detail: Decodable { var code: String }
        var error: Detail
    }

    /// A viewer reads and dry-runs but gets 403 forbidden_role for capture, apply and import; the operator's
    /// capture is audited as token:olga; SIGHUP without "vic" revokes the viewer at once, without a restart.
    func testViewerAndOperatorTokensAndRevocationBySIGHUP() throws {
        let a = try reference()
        let port = try TestPorts.freeLoopbackPort()
        let api = "{ tcp: { listen: \"127.0.0.1:\(port)\", tokens: \(tokens()) } }"
        let daemon = try DaemonHarness(config: config(api: api, port: a.port!))
        func client(_ secret: String) -> HTTPClient {
            HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: UInt16(port)), timeout: .seconds(20), bearerToken: secret)
        }
        let viewer = client(Self.viewerSecret)
        let op = client(Self.operatorSecret)
        XCTAssertEqual(try viewer.send(method: "GET", path: "/v1/pages").status, 200)
        let capture = Array(#"{"device":"press-a"}"#.utf8)
        let refused = try viewer.send(method: "POST", path: "/v1/pages/heating/capture?wait=1", body: capture)
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(errorCode(refused), "forbidden_role")
        XCTAssertTrue(refused.text.contains("token:vic is a viewer"), refused.text)

        let captured = try op.send(method: "POST", path: "/v1/pages/heating/capture?wait=1", body: capture)
        XCTAssertEqual(captured.status, 200, captured.text)
        XCTAssertEqual(try daemon.auditRecords().last?.who, "token:olga")

        let dry = try viewer.send(
            method: "POST", path: "/v1/pages/heating/apply?wait=1", body: Array(#"{"device":"press-a","dryRun":true}"#.utf8))
        XCTAssertEqual(dry.status, 200, dry.text)
        XCTAssertEqual(try viewer.send(method: "GET", path: "/v1/pages/heating/diff?device=press-a").status, 200)
        for body in [#"{"device":"press-a"}"#, #"{"device":"press-a","dryRun":false}"#, #"{"device":"press-a","dryRun":"true"}"#]
        {
            let write = try viewer.send(method: "POST", path: "/v1/pages/heating/apply?wait=1", body: Array(body.utf8))
            XCTAssertEqual(errorCode(write), "forbidden_role", body)
        }
        let file = try op.send(method: "GET", path: "/v1/pages/heating/templates/1/file")
        XCTAssertEqual(file.status, 200)
        XCTAssertEqual(
            errorCode(try viewer.send(method: "POST", path: "/v1/pages/heating/templates", body: file.body)), "forbidden_role")
        let audit = try daemon.auditRecords()
        XCTAssertEqual(audit.map(\.kind), [.capture, .dryRun, .dryRun], "no write of the viewer's reached the audit log")
        XCTAssertEqual(audit.map(\.who), ["token:olga", "token:vic", "token:vic"])

        // Revoke "vic": rewrite the config and SIGHUP.
        try config(api: "{ tcp: { listen: \"127.0.0.1:\(port)\", tokens: \(tokens(viewer: false)) } }", port: a.port!)
            .write(to: daemon.configURL, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        let end = Date().addingTimeInterval(10)
        var status = 200
        while status == 200 && Date() < end {
            status = try viewer.send(method: "GET", path: "/v1/pages").status
            if status == 200 { usleep(20_000) }
        }
        XCTAssertEqual(status, 401, "the revoked viewer token still works after SIGHUP")
        XCTAssertEqual(try op.send(method: "GET", path: "/v1/pages").status, 200)
        XCTAssertEqual(daemon.process.isRunning, true)
    }

    /// The session endpoints through the daemon: sign in sets an HttpOnly cookie; a change needs Origin and the
    /// CSRF token; sign-out ends the session on the server, so the old cookie is refused afterwards.
    func testSessionSignInCSRFAndSignOut() throws {
        let a = try reference()
        let port = try TestPorts.freeLoopbackPort()
        let daemon = try DaemonHarness(
            config: config(api: "{ tcp: { listen: \"127.0.0.1:\(port)\", tokens: \(tokens()) } }", port: a.port!))
        let browser = HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: UInt16(port)), timeout: .seconds(20))
        let origin = "http://127.0.0.1:\(port)"
        let wrong = try browser.send(
            method: "POST", path: "/v1/session", body: Array(#"{"token":"guess-0123456789abcdef"}"#.utf8),
            headers: ["Origin": origin])
        XCTAssertEqual(wrong.status, 401)
        XCTAssertNil(wrong.header("Set-Cookie"))
        let signIn = try browser.send(
            method: "POST", path: "/v1/session", body: Array("{\"token\":\"\(Self.operatorSecret)\"}".utf8),
            headers: ["Origin": origin])
        XCTAssertEqual(signIn.status, 201, signIn.text)
        let setCookie = try XCTUnwrap(signIn.header("Set-Cookie"))
        XCTAssertTrue(setCookie.hasSuffix("; Path=/; Max-Age=28800; HttpOnly; SameSite=Strict"), setCookie)
        let cookie = String(setCookie.prefix { $0 != ";" })
        let info = try daemon.decode(SessionInfo.self, signIn)
        XCTAssertEqual(info.principal, "token:olga")
        XCTAssertEqual(info.role, .operator)
        let csrf = try XCTUnwrap(info.csrfToken)
        let again = try daemon.decode(
            SessionInfo.self, try browser.send(method: "GET", path: "/v1/session", headers: ["Cookie": cookie]))
        XCTAssertEqual(again.csrfToken, csrf)

        let capture = Array(#"{"device":"press-a"}"#.utf8)
        let noCSRF = try browser.send(
            method: "POST", path: "/v1/pages/heating/capture?wait=1", body: capture,
            headers: ["Cookie": cookie, "Origin": origin])
        XCTAssertEqual(errorCode(noCSRF), "csrf_failed")
        let foreign = try browser.send(
            method: "POST", path: "/v1/pages/heating/capture?wait=1", body: capture,
            headers: ["Cookie": cookie, "Origin": "http://127.0.0.1:1", "X-CSRF-Token": csrf])
        XCTAssertEqual(errorCode(foreign), "forbidden_origin")
        let ok = try browser.send(
            method: "POST", path: "/v1/pages/heating/capture?wait=1", body: capture,
            headers: ["Cookie": cookie, "Origin": origin, "X-CSRF-Token": csrf])
        XCTAssertEqual(ok.status, 200, ok.text)
        XCTAssertEqual(try daemon.auditRecords().last?.who, "token:olga")

        let out = try browser.send(
            method: "DELETE", path: "/v1/session", headers: ["Cookie": cookie, "Origin": origin, "X-CSRF-Token": csrf])
        XCTAssertEqual(out.status, 200, out.text)
        XCTAssertTrue(out.header("Set-Cookie")?.contains("Max-Age=0") ?? false)
        XCTAssertEqual(try browser.send(method: "GET", path: "/v1/pages", headers: ["Cookie": cookie]).status, 401)
        let after = try daemon.decode(
            SessionInfo.self, try browser.send(method: "GET", path: "/v1/session", headers: ["Cookie": cookie]))
        XCTAssertFalse(after.signedIn)
    }

    /// Unix-socket peers get their role from their groups: this process's own group made a viewer group makes
    /// it a viewer (capture 403 forbidden_role); in no listed group it gets 403 no_role.
    func testUnixPeerRoleByGroup() throws {
        let a = try reference()
        let group = String(cString: getgrgid(getgid())!.pointee.gr_name)
        let user = String(cString: getpwuid(getuid())!.pointee.pw_name)
        let daemon = try DaemonHarness(
            config: config(
                api: "{ roles: { operatorGroups: [\"no-such-group-x\"], viewerGroups: [\"\(group)\"] } }", port: a.port!))
        XCTAssertEqual(try daemon.api("GET", "/v1/devices").status, 200)
        let refused = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#)
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(errorCode(refused), "forbidden_role")
        XCTAssertTrue(refused.text.contains("uid:\(getuid())(\(user)) is a viewer"), refused.text)

        try config(api: "{ roles: { operatorGroups: [\"no-such-group-x\"] } }", port: a.port!)
            .write(to: daemon.configURL, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        let end = Date().addingTimeInterval(10)
        var code = ""
        repeat {
            code = errorCode(try daemon.api("GET", "/v1/devices"))
            if code != "no_role" { usleep(20_000) }
        } while code != "no_role" && Date() < end
        XCTAssertEqual(code, "no_role")

        try config(api: "{ roles: { operatorGroups: [\"\(group)\"] } }", port: a.port!)
            .write(to: daemon.configURL, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        var status = 0
        repeat {
            status = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status
            if status != 200 { usleep(20_000) }
        } while status != 200 && Date() < end
        XCTAssertEqual(status, 200)
        XCTAssertEqual(try daemon.auditRecords().last?.who, "uid:\(getuid())(\(user))")
    }

    /// HTTPS through libmicrohttpd's GnuTLS with a self-signed certificate made here; plain HTTP gets no answer.
    func testTLSListenerWithSelfSignedCertificate() throws {
        let a = try reference()
        let dir = try tempDir()
        let cert = dir.appendingPathComponent("cert.pem").path
        let key = dir.appendingPathComponent("key.pem").path
        let made = try run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", cert,
            ])
        XCTAssertEqual(made.status, 0, made.output)
        let port = try TestPorts.freeLoopbackPort()
        let api = "{ tcp: { listen: \"127.0.0.1:\(port)\", tokens: \(tokens()), tls: { cert: \"\(cert)\", key: \"\(key)\" } } }"
        let daemon = try DaemonHarness(config: config(api: api, port: a.port!))
        // The log line travels through a pipe read on another thread: wait for it rather than sample once.
        XCTAssertTrue(eventually(timeout: 5) { daemon.stderr.contains("https://127.0.0.1:\(port)/") }, daemon.stderr)
        let base = "https://127.0.0.1:\(port)"
        let health = try run(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "10", "--cacert", cert, "-H", "Authorization: Bearer \(Self.viewerSecret)",
                "\(base)/v1/health",
            ])
        XCTAssertEqual(health.status, 0, health.output)
        XCTAssertTrue(health.output.contains("\"status\":\"ok\""), health.output)
        let page = try run("/usr/bin/curl", ["-sS", "--max-time", "10", "--cacert", cert, "\(base)/"])
        XCTAssertTrue(page.output.contains("<title>Lastset"), page.output)
        // Sign-in over TLS: the session cookie is Secure.
        let signIn = try run(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "10", "--cacert", cert, "-D", "-", "-H", "Origin: \(base)", "-H",
                "Content-Type: application/json",
                "--data-binary", "{\"token\":\"\(Self.operatorSecret)\"}", "\(base)/v1/session",
            ])
        XCTAssertTrue(signIn.output.contains("HttpOnly; SameSite=Strict; Secure"), signIn.output)
        let plain = try run(
            "/usr/bin/curl",
            ["-sS", "--max-time", "5", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/v1/health"])
        XCTAssertNotEqual(plain.output, "200", "plain HTTP was answered on the TLS listener")
    }

    /// A listener off loopback without TLS: --check-config names the problem, and the daemon refuses to start.
    func testNonLoopbackListenerWithoutTLSIsRefused() throws {
        let dir = try tempDir()
        let file = dir.appendingPathComponent("lastset.json")
        try config(api: "{ tcp: { listen: \"0.0.0.0:8502\", tokens: \(tokens()) } }", port: 1)
            .write(to: file, atomically: true, encoding: .utf8)
        let lastsetd = try TestPaths.executable("lastsetd").path
        let check = try run(lastsetd, ["--check-config", "--config", file.path])
        XCTAssertEqual(check.status, 1)
        XCTAssertTrue(check.output.contains("api.tcp.listen") && check.output.contains("needs \"tls\""), check.output)
        let start = try run(
            lastsetd, ["--config", file.path, "--data-dir", dir.path + "/data", "--socket", dir.path + "/api.sock"])
        XCTAssertEqual(start.status, 1)
        XCTAssertTrue(start.output.contains("not a loopback address"), start.output)
    }

    private func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let run = try ProgramRun.run(URL(fileURLWithPath: path), arguments, mergingStderr: true)
        return (run.status, run.stdout)
    }
}
