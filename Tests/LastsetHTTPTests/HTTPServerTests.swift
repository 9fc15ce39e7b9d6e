import Foundation
import Glibc
import LastsetClient
import LastsetHTTP
import TestSupport
import XCTest
import LastsetSystem

private struct Echo: Codable, Equatable {
    var method: String
    var path: String
    var query: [String: String]
    var contentType: String?
    var body: String
    var peer: String
    var uid: UInt32?
}

private func echo(_ request: HTTPRequest) -> HTTPResponse {
    var uid: UInt32?
    if case .unix(let peerUID, _, _) = request.peer { uid = peerUID }
    return .json(
        200,
        Echo(
            method: request.method, path: request.path, query: request.query,
            contentType: request.headers["content-TYPE"], body: String(decoding: request.body, as: UTF8.self),
            peer: request.peer.description, uid: uid))
}

final class HTTPServerTests: XCTestCase {
    private var directory = ""
    private var socketPath: String { directory + "/api.sock" }

    override func setUpWithError() throws {
        directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-http")
    }

    override func tearDown() {
        TestPaths.remove(directory)
    }

    private func startServer(
        maxBodyBytes: Int = 64 * 1024, handler: @escaping HTTPHandler = { echo($0) }
    ) throws -> HTTPServer {
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(unixSocketPath: socketPath, maxBodyBytes: maxBodyBytes), handler: handler)
        try server.start()
        return server
    }

    private var client: HTTPClient { HTTPClient(endpoint: .unix(path: socketPath), timeout: .seconds(10)) }

    func testGetWithQueryReturnsJSON() throws {
        let server = try startServer()
        defer { server.stop() }
        let response = try client.send(method: "GET", path: "/v1/pages?device=press-1&verbose")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        let decoded = try response.decodeJSON(Echo.self)
        XCTAssertEqual(decoded.method, "GET")
        XCTAssertEqual(decoded.path, "/v1/pages")
        XCTAssertEqual(decoded.query, ["device": "press-1", "verbose": ""])
        XCTAssertEqual(decoded.body, "")
    }

    func testPostJSONBodyReachesHandler() throws {
        let server = try startServer()
        defer { server.stop() }
        let body = Array(#"{"from":"press-1","dryRun":true}"#.utf8)
        let response = try client.send(method: "POST", path: "/v1/pages/heating/capture", body: body)
        XCTAssertEqual(response.status, 200)
        let decoded = try response.decodeJSON(Echo.self)
        XCTAssertEqual(decoded.method, "POST")
        XCTAssertEqual(decoded.path, "/v1/pages/heating/capture")
        XCTAssertEqual(decoded.contentType, "application/json")
        XCTAssertEqual(decoded.body, #"{"from":"press-1","dryRun":true}"#)
    }

    func testHandlerStatusAndHeadersAreSent() throws {
        let server = try startServer { _ in
            var response = HTTPResponse.error(404, code: "page_not_found", message: "no page \"nope\"")
            response.headers["X-Lastset-Test"] = "yes"
            return response
        }
        defer { server.stop() }
        let response = try client.send(method: "GET", path: "/v1/pages/nope")
        XCTAssertEqual(response.status, 404)
        XCTAssertEqual(response.header("x-lastset-test"), "yes")
        let error = try response.decodeJSON(HTTPErrorBody.self)
        XCTAssertEqual(error.error, .init(code: "page_not_found", message: "no page \"nope\""))
    }

    func testSocketFileHasMode0660() throws {
        let server = try startServer()
        defer { server.stop() }
        var info = stat()
        XCTAssertEqual(lstat(socketPath, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFSOCK)
        XCTAssertEqual(info.st_mode & 0o7777, 0o660)
    }

    func testUnixPeerCredentialsAreTheCallersOwn() throws {
        let server = try startServer()
        defer { server.stop() }
        let decoded = try client.send(method: "GET", path: "/whoami").decodeJSON(Echo.self)
        XCTAssertEqual(decoded.uid, getuid())
        XCTAssertEqual(decoded.peer, "uid \(getuid()) (pid \(getpid()))")
    }

    func testBodyOverLimitGets413WithoutReachingHandler() throws {
        let called = LockedValue(false)
        let server = try startServer(maxBodyBytes: 1024) { request in
            called.value = true
            return echo(request)
        }
        defer { server.stop() }
        let response = try client.send(method: "POST", path: "/v1/import", body: [UInt8](repeating: 0x41, count: 200_000))
        XCTAssertEqual(response.status, 413)
        let error = try response.decodeJSON(HTTPErrorBody.self)
        XCTAssertEqual(error.error.code, "body_too_large")
        XCTAssertEqual(error.error.message, "the 200000-byte request body exceeds the limit of 1024 bytes")
        XCTAssertFalse(called.value)

        // A body exactly at the limit is accepted.
        let atLimit = try client.send(method: "POST", path: "/v1/import", body: [UInt8](repeating: 0x41, count: 1024))
        XCTAssertEqual(atLimit.status, 200)
        XCTAssertEqual(try atLimit.decodeJSON(Echo.self).body.count, 1024)
    }

    func testChunkedBodyOverLimitGets413() throws {
        let server = try startServer(maxBodyBytes: 16) { request in echo(request) }
        defer { server.stop() }
        let chunk = String(repeating: "x", count: 10)
        let request =
            "POST /v1/import HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            + "a\r\n\(chunk)\r\na\r\n\(chunk)\r\n0\r\n\r\n"
        let reply = try rawExchange(socketPath: socketPath, Array(request.utf8))
        XCTAssertTrue(reply.hasPrefix("HTTP/1.1 413"), reply)
        XCTAssertTrue(reply.contains("\"body_too_large\""), reply)
        XCTAssertTrue(reply.contains("chunked request body exceeds the limit of 16 bytes"), reply)
    }

    func testMalformedRequestLineGets400() throws {
        let called = LockedValue(false)
        let server = try startServer { request in
            called.value = true
            return echo(request)
        }
        defer { server.stop() }
        let reply = try rawExchange(socketPath: socketPath, Array("THIS IS NOT HTTP\r\n\r\n".utf8))
        XCTAssertTrue(reply.hasPrefix("HTTP/1.1 400") || reply.hasPrefix("HTTP/1.0 400"), "reply: \(reply)")
        XCTAssertFalse(called.value)
        // The server still serves well-formed requests afterwards.
        XCTAssertEqual(try client.send(method: "GET", path: "/v1/status").status, 200)
    }

    func testSlowHandlersRunConcurrently() throws {
        let server = try startServer { request in
            try? await Task.sleep(for: .seconds(1))
            return echo(request)
        }
        defer { server.stop() }
        let statuses = LockedValue<[Int]>([])
        let client = self.client
        let start = ContinuousClock.now
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let status = (try? client.send(method: "GET", path: "/slow/\(index)").status) ?? -1
            statuses.mutate { $0.append(status) }
        }
        let elapsed = ContinuousClock.now - start
        XCTAssertEqual(statuses.value, [200, 200])
        XCTAssertGreaterThanOrEqual(elapsed, .seconds(1))
        XCTAssertLessThan(elapsed, .milliseconds(1600), "two 1 s handlers took \(elapsed)")
    }

    func testStaleSocketFileIsReplaced() throws {
        // Leave a socket file behind with nobody listening, as after a crash.
        let stale = try HTTPServer(configuration: HTTPServerConfiguration(unixSocketPath: socketPath), handler: { echo($0) })
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let bound = try UnixSocketAddress(socketPath).withSockaddr { bind(fd, $0, $1) }
        XCTAssertEqual(bound, 0)
        close(fd)
        try stale.start()
        defer { stale.stop() }
        XCTAssertEqual(try client.send(method: "GET", path: "/").status, 200)
    }

    func testLiveSocketIsNotStolen() throws {
        let first = try startServer()
        defer { first.stop() }
        let second = try HTTPServer(configuration: HTTPServerConfiguration(unixSocketPath: socketPath), handler: { echo($0) })
        XCTAssertThrowsError(try second.start()) { error in
            XCTAssertEqual((error as? HTTPServerError)?.kind, .addressInUse)
        }
        XCTAssertEqual(try client.send(method: "GET", path: "/").status, 200)
    }

    func testRegularFileAtSocketPathIsRefused() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: socketPath, contents: Data("keep me".utf8)))
        let server = try HTTPServer(configuration: HTTPServerConfiguration(unixSocketPath: socketPath), handler: { echo($0) })
        XCTAssertThrowsError(try server.start()) { error in
            XCTAssertEqual((error as? HTTPServerError)?.kind, .invalidConfiguration)
            XCTAssertTrue("\(error)".contains("\"\(self.socketPath)\" exists and is not a socket"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOfFile: socketPath, encoding: .utf8), "keep me")
    }

    func testStopRemovesSocketAndIsIdempotent() throws {
        let server = try startServer()
        XCTAssertTrue(FileManager.default.fileExists(atPath: socketPath))
        server.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: socketPath))
        server.stop()
        // Restartable after stop.
        try server.start()
        XCTAssertEqual(try client.send(method: "GET", path: "/").status, 200)
        server.stop()
    }

    func testConfigurationWithoutListenerIsRejected() {
        XCTAssertThrowsError(try HTTPServer(configuration: HTTPServerConfiguration(), handler: { echo($0) })) { error in
            XCTAssertEqual((error as? HTTPServerError)?.kind, .noListener)
        }
    }

    func testNonNumericTCPHostIsRejected() throws {
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(tcp: .init(host: "example.com", port: 0)), handler: { echo($0) })
        XCTAssertThrowsError(try server.start()) { error in
            XCTAssertEqual(
                "\(error)", "TCP listen host \"example.com\" is not a numeric IPv4/IPv6 address or \"localhost\"")
        }
    }
}

final class HTTPServerResourceTests: XCTestCase {
    private func openDescriptorCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    func testStartStopCyclesLeakNoDescriptors() throws {
        let directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-http")
        defer { TestPaths.remove(directory) }
        let path = directory + "/api.sock"
        let server = try HTTPServer(
            configuration: .init(unixSocketPath: path, tcp: .init(host: "127.0.0.1", port: 0)), handler: { _ in .text(200, "ok") }
        )
        // One warm-up cycle lets libdispatch and the runtime open what they keep.
        try server.start()
        server.stop()
        let before = try openDescriptorCount()
        let cycles = 8
        for _ in 0..<cycles {
            try server.start()
            let port = try XCTUnwrap(server.tcpPort)
            XCTAssertEqual(try HTTPClient(endpoint: .unix(path: path)).send(method: "GET", path: "/").text, "ok\n")
            XCTAssertEqual(
                try HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: port)).send(method: "GET", path: "/").status, 200)
            server.stop()
        }
        // A leak per cycle would show as at least `cycles` (two listeners each); the runtime may lazily open one or two.
        XCTAssertLessThanOrEqual(try openDescriptorCount(), before + 2)
    }
}
