import Foundation
import Glibc
import LastsetClient
import LastsetHTTP
import TestSupport
import XCTest

/// Opens a TCP connection to 127.0.0.1:`port` from the local address `source` (any 127/8 address works on Linux) and
/// sends nothing more than `prefix`: a half-open request that holds a connection slot.
private func idleConnection(to port: UInt16, from source: String, prefix: String = "") throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    var local = sockaddr_in()
    local.sin_family = sa_family_t(AF_INET)
    local.sin_addr.s_addr = inet_addr(source)
    var remote = sockaddr_in()
    remote.sin_family = sa_family_t(AF_INET)
    remote.sin_addr.s_addr = inet_addr("127.0.0.1")
    remote.sin_port = port.bigEndian
    let ok = withUnsafePointer(to: &local) { l in
        withUnsafePointer(to: &remote) { r in
            l.withMemoryRebound(to: sockaddr.self, capacity: 1) { lp in
                r.withMemoryRebound(to: sockaddr.self, capacity: 1) { rp in
                    bind(fd, lp, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                        && connect(fd, rp, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
        }
    }
    guard ok else {
        let e = errno
        close(fd)
        throw POSIXError(POSIXErrorCode(rawValue: e) ?? .EIO)
    }
    if !prefix.isEmpty { _ = prefix.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) } }
    return fd
}

/// Whether the peer closed `fd` within `timeout` (a read returns 0 or an error).
private func closedByPeer(_ fd: Int32, within timeout: Duration) -> Bool {
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let ms = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
    guard poll(&pfd, 1, ms) > 0 else { return false }
    var byte: UInt8 = 0
    return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) <= 0
}

/// The listener's defences: control bytes in the request target, idle connections, one client hogging every slot.
final class HTTPHardeningTests: XCTestCase {
    private var directory = ""
    private var socketPath: String { directory + "/api.sock" }

    override func setUpWithError() throws {
        directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-http")
    }

    override func tearDown() {
        TestPaths.remove(directory)
    }

    /// `%00` used to be decoded by libmicrohttpd into a NUL that ended the C string: `/apply%00/capture` reached the
    /// handler as `/apply`. Every control byte in the target is refused before the handler sees it.
    func testControlBytesInTheRequestTargetAre400AndNeverReachTheHandler() throws {
        let seen = LockedValue<[String]>([])
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(unixSocketPath: socketPath),
            handler: { request in
                seen.mutate { $0.append(request.path) }
                return .text(200, "ran \(request.path)")
            })
        try server.start()
        defer { server.stop() }
        let client = HTTPClient(endpoint: .unix(path: socketPath), timeout: .seconds(10))
        for target in [
            "/v1/pages/heating/apply%00/capture", "/v1/pages/heating%00.json/templates", "/v1/pages/a%0Ab",
            "/v1/pages/a%0d%0aX-Injected:%201", "/v1/pages/a%1fb", "/v1/pages/a%7Fb", "/v1/health?x=%00",
        ] {
            let response = try client.send(method: "POST", path: target, body: Array("{}".utf8))
            XCTAssertEqual(response.status, 400, "\(target): \(response.text)")
            let error = try response.decodeJSON(HTTPErrorBody.self)
            XCTAssertEqual(error.error.code, "bad_path", target)
            XCTAssertTrue(error.error.message.contains("control byte"), error.error.message)
        }
        XCTAssertEqual(seen.value, [], "no request with a control byte reached the handler")
        // Ordinary escapes still work.
        XCTAssertEqual(try client.send(method: "GET", path: "/v1/pages/a%20b").text, "ran /v1/pages/a b\n")
    }

    /// 64 connections that never finish a request used to take every slot of the TCP listener (no token is needed
    /// to connect): a legitimate client was locked out. One client address now gets a bounded share.
    func testSixtyFourIdleTCPConnectionsFromOneClientDoNotLockOthersOut() throws {
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0)),
            handler: { _ in .text(200, "ok") })
        try server.start()
        defer { server.stop() }
        let port = try XCTUnwrap(server.tcpPort)
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        for _ in 0..<70 {
            // Connecting succeeds even past the limit (the kernel's backlog); the slot is what counts.
            if let fd = try? idleConnection(to: port, from: "127.0.0.2", prefix: "GET /v1/health HTTP/1.1\r\n") {
                held.append(fd)
            }
        }
        XCTAssertGreaterThanOrEqual(held.count, 64)
        let client = HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: port), timeout: .seconds(5))
        let response = try client.send(method: "GET", path: "/v1/health")
        XCTAssertEqual(response.status, 200, response.text)
    }

    /// A connection that sends half a request and then nothing is closed after the connection timeout, not kept.
    func testHalfSentRequestIsClosedAfterTheTimeout() throws {
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), connectionTimeout: .seconds(1)),
            handler: { _ in .text(200, "ok") })
        try server.start()
        defer { server.stop() }
        let fd = try idleConnection(to: try XCTUnwrap(server.tcpPort), from: "127.0.0.1", prefix: "GET / HTTP/1.1\r\nHost: x")
        defer { close(fd) }
        XCTAssertTrue(closedByPeer(fd, within: .seconds(4)), "a half-sent request held its connection past the timeout")
    }
}

final class RequestTargetTests: XCTestCase {
    func testControlBytesRawOrEncodedAreFoundAndOrdinaryEscapesAreNot() {
        let cases: [(String, Int?, UInt8?)] = [
            ("/v1/pages/heating", nil, nil), ("/v1/pages/a%20b?x=%41", nil, nil), ("/v1/%", nil, nil), ("/v1/%0", nil, nil),
            ("/v1/%zz", nil, nil), ("/v1/%7e", nil, nil), ("/apply%00/capture", 6, 0x00), ("/a%0A", 2, 0x0A),
            ("/a%0d", 2, 0x0D), ("/a%1F", 2, 0x1F), ("/a%7f", 2, 0x7F), ("/a\tb", 2, 0x09), ("/a\u{7F}", 2, 0x7F),
            ("/ok?q=%00", 6, 0x00),
        ]
        for (target, offset, byte) in cases {
            let found = RequestTarget.controlByte(in: Array(target.utf8))
            XCTAssertEqual(found?.offset, offset, target)
            XCTAssertEqual(found?.byte, byte, target)
        }
    }
}
