import Foundation
import Glibc
import LastsetHTTP
import TestSupport
import XCTest

@testable import LastsetClient

final class HTTPClientTests: XCTestCase {
    func testMissingSocketSaysSoAndHintsAtTheDaemon() throws {
        let directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-http")
        defer { TestPaths.remove(directory) }
        let path = directory + "/api.sock"
        let client = HTTPClient(endpoint: .unix(path: path), timeout: .seconds(2))
        XCTAssertThrowsError(try client.send(method: "GET", path: "/v1/status")) { error in
            let failure = error as? HTTPClientError
            XCTAssertEqual(failure?.kind, .cannotConnect)
            XCTAssertEqual(failure?.errno, ENOENT)
            XCTAssertEqual("\(error)", "cannot connect to \(path): No such file or directory (is lastsetd running?)")
        }
    }

    func testRefusedTCPPortIsCannotConnect() throws {
        // Bind a port, then close it, so nothing listens there.
        let server = try HTTPServer(
            configuration: .init(tcp: .init(host: "127.0.0.1", port: 0)), handler: { _ in .text(200, "") })
        try server.start()
        let port = try XCTUnwrap(server.tcpPort)
        server.stop()
        let client = HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: port), timeout: .seconds(2))
        XCTAssertThrowsError(try client.send(method: "GET", path: "/")) { error in
            XCTAssertEqual((error as? HTTPClientError)?.kind, .cannotConnect)
            XCTAssertEqual("\(error)", "cannot connect to 127.0.0.1:\(port): Connection refused (is lastsetd running?)")
        }
    }

    func testSlowReplyTimesOut() throws {
        let directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-http")
        defer { TestPaths.remove(directory) }
        let path = directory + "/api.sock"
        let server = try HTTPServer(configuration: .init(unixSocketPath: path)) { _ in
            try? await Task.sleep(for: .seconds(1))
            return .text(200, "late")
        }
        try server.start()
        defer { server.stop() }
        let client = HTTPClient(endpoint: .unix(path: path), timeout: .milliseconds(200))
        let start = ContinuousClock.now
        XCTAssertThrowsError(try client.send(method: "GET", path: "/")) { error in
            XCTAssertEqual((error as? HTTPClientError)?.kind, .timeout)
            XCTAssertTrue("\(error)".contains("waiting for the reply"), "\(error)")
        }
        XCTAssertLessThan(ContinuousClock.now - start, .milliseconds(900))
    }

    func testEndpointParsing() throws {
        XCTAssertEqual(try ClientEndpoint(parsing: "/run/lastset/api.sock"), .unix(path: "/run/lastset/api.sock"))
        XCTAssertEqual(try ClientEndpoint(parsing: "unix:/tmp/a.sock"), .unix(path: "/tmp/a.sock"))
        XCTAssertEqual(try ClientEndpoint(parsing: "http://127.0.0.1:8502"), .tcp(host: "127.0.0.1", port: 8502))
        XCTAssertEqual(try ClientEndpoint(parsing: "http://[::1]:8502/"), .tcp(host: "::1", port: 8502))
        XCTAssertEqual(ClientEndpoint.tcp(host: "::1", port: 8502).description, "[::1]:8502")
        // Each refusal quotes the text and says what is wrong in it (the host:port parser's reason passed on).
        let refused: [(text: String, why: String)] = [
            ("api.sock", "\"api.sock\" (expected"),
            ("https://x:1", "\"https://x:1\" (expected"),
            ("http://127.0.0.1", "\"http://127.0.0.1\": missing ':port' (expected"),
            ("http://[::1/", "\"http://[::1/\": unclosed '[' in IPv6 host (expected"),
            ("http://[::1]8502", "\"http://[::1]8502\": missing ':port' (expected"),
            ("http://:80", "\"http://:80\": no host before ':' (expected"),
            ("http://h:99999", "\"http://h:99999\": port \"99999\" is not a number up to 65535 (expected"),
            ("http://h:", "\"http://h:\": port \"\" is not a number up to 65535 (expected"),
        ]
        for (bad, why) in refused {
            XCTAssertThrowsError(try ClientEndpoint(parsing: bad)) { error in
                XCTAssertEqual((error as? HTTPClientError)?.kind, .invalidEndpoint)
                XCTAssertTrue("\(error)".hasPrefix("invalid API endpoint \(why)"), "\(error)")
            }
        }
    }

    func testRequestEncoding() {
        let client = HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: 8502), bearerToken: "t")
        let bytes = client.requestBytes(method: "POST", path: "/v1/x", body: Array("{}".utf8), headers: ["X-A": "1"])
        XCTAssertEqual(
            String(decoding: bytes, as: UTF8.self),
            "POST /v1/x HTTP/1.1\r\nHost: 127.0.0.1:8502\r\nConnection: close\r\nAccept: application/json\r\n"
                + "Authorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: 2\r\nX-A: 1\r\n\r\n{}")
    }

    // MARK: response parsing, fed in every possible split

    private func parseInTwoPieces(_ text: String, isHead: Bool = false) throws -> [HTTPClientResponse] {
        let bytes = Array(text.utf8)
        var results: [HTTPClientResponse] = []
        for split in 0...bytes.count {
            var parser = ResponseParser(isHeadRequest: isHead)
            var response = try parser.feed(bytes[0..<split])
            if response == nil { response = try parser.feed(bytes[split...]) }
            results.append(try response ?? parser.finish())
        }
        return results
    }

    func testParsesContentLength() throws {
        for response in try parseInTwoPieces("HTTP/1.1 201 Created\r\nContent-Length: 5\r\nX-Y: a\r\nX-Y: b\r\n\r\nhello") {
            XCTAssertEqual(
                response,
                HTTPClientResponse(status: 201, headers: ["content-length": "5", "x-y": "a, b"], body: Array("hello".utf8)))
        }
    }

    func testParsesChunked() throws {
        let text =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nTrailer: x\r\n\r\n"
        for response in try parseInTwoPieces(text) {
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.text, "hello world")
        }
    }

    func testSkipsInterimResponsesAndReadsUntilClose() throws {
        for response in try parseInTwoPieces("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\n\r\nall of it") {
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.text, "all of it")
        }
    }

    func testHeadResponseHasNoBody() throws {
        for response in try parseInTwoPieces("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", isHead: true) {
            XCTAssertEqual(response.body, [])
        }
    }

    func testRejectsMalformedReplies() {
        let cases: [(String, String)] = [
            ("SSH-2.0-OpenSSH\r\n\r\n", "invalid status line \"SSH-2.0-OpenSSH\""),
            ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "invalid Content-Length \"-1\""),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "invalid chunk size \"zz\""),
            ("HTTP/1.1 200 OK\r\nbroken\r\n\r\n", "invalid header line \"broken\""),
        ]
        for (text, detail) in cases {
            var parser = ResponseParser()
            XCTAssertThrowsError(try parser.feed(Array(text.utf8))) { error in
                XCTAssertEqual((error as? ResponseParser.Failure)?.detail, detail)
            }
        }
        var truncated = ResponseParser()
        XCTAssertNil(try truncated.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort".utf8)))
        XCTAssertThrowsError(try truncated.finish()) { error in
            XCTAssertEqual((error as? ResponseParser.Failure)?.detail, "the connection closed before the reply was complete")
        }
    }
}
