import Foundation
import Glibc
import LastsetClient
import LastsetHTTP
import TestSupport
import XCTest

/// A response body produced over time (`HTTPStream`, the API's server-sent events) through the real libmicrohttpd
/// server and the CLI's client: bytes arrive as they are pushed, in order; a silence is filled with the keep-alive
/// bytes within the idle timeout; the stream's end, the client's leaving and the server's stop each end it.
final class HTTPStreamTests: XCTestCase {
    private var directory = ""
    private var socketPath: String { directory + "/api.sock" }

    override func setUpWithError() throws {
        directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-stream")
    }

    override func tearDown() {
        TestPaths.remove(directory)
    }

    /// A server answering every request with `stream`.
    private func server(_ stream: HTTPStream, timeout: Duration = .seconds(30)) throws -> HTTPServer {
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(unixSocketPath: socketPath, connectionTimeout: timeout),
            handler: { _ in
                var response = HTTPResponse(status: 200, headers: ["Content-Type": "text/event-stream"])
                response.stream = stream
                return response
            })
        try server.start()
        return server
    }

    /// Follows the stream on a thread of its own; `received` grows as bytes arrive.
    private final class Follower: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        private(set) var status: Int?
        let done = DispatchSemaphore(value: 0)

        var received: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }

        init(_ client: HTTPClient, stopAfter: String? = nil) {
            Thread.detachNewThread {
                let response = try? client.stream(
                    method: "GET", path: "/v1/events", headers: [:], firstByte: .seconds(10), idle: .seconds(10)
                ) { chunk in
                    self.lock.withLock { self.bytes += chunk }
                    return stopAfter.map { !self.received.contains($0) } ?? true
                }
                self.lock.withLock { self.status = response?.status }
                self.done.signal()
            }
        }

        func waitFor(_ text: String, timeout: TimeInterval = 10) -> Bool {
            let end = Date().addingTimeInterval(timeout)
            while Date() < end {
                if received.contains(text) { return true }
                usleep(10_000)
            }
            return false
        }
    }

    private var client: HTTPClient { HTTPClient(endpoint: .unix(path: socketPath), timeout: .seconds(10)) }

    func testBytesArriveAsPushedAndTheEndEndsTheResponse() throws {
        let stream = HTTPStream()
        let server = try server(stream)
        defer { server.stop() }
        stream.push(Array("first\n".utf8))
        let follower = Follower(client)
        XCTAssertTrue(follower.waitFor("first\n"), follower.received)
        stream.push(Array("second\n".utf8))
        XCTAssertTrue(follower.waitFor("first\nsecond\n"), follower.received)
        stream.push(Array("third\n".utf8))
        stream.finish()
        XCTAssertEqual(follower.done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(follower.status, 200)
        XCTAssertEqual(follower.received, "first\nsecond\nthird\n")
        XCTAssertFalse(stream.push([0x41]), "an ended stream takes nothing")
    }

    func testASilenceIsFilledWithinTheIdleTimeout() throws {
        let stream = HTTPStream(keepAlive: Array(":\n".utf8))
        // A 1 s connection timeout: the keep-alive comes every third of it, so the quiet stream lives on.
        let server = try server(stream, timeout: .seconds(1))
        defer { server.stop() }
        let follower = Follower(client)
        Thread.sleep(forTimeInterval: 2.5)
        stream.push(Array("late\n".utf8))
        XCTAssertTrue(follower.waitFor("late\n"), follower.received)
        XCTAssertGreaterThanOrEqual(follower.received.components(separatedBy: ":\n").count - 1, 3, follower.received)
        stream.finish()
        XCTAssertEqual(follower.done.wait(timeout: .now() + 10), .success)
    }

    func testTheClientLeavingEndsTheStream() throws {
        let stream = HTTPStream()
        let closed = DispatchSemaphore(value: 0)
        stream.onClose { closed.signal() }
        let server = try server(stream)
        defer { server.stop() }
        stream.push(Array("hello\n".utf8))
        let follower = Follower(client, stopAfter: "hello")
        XCTAssertEqual(follower.done.wait(timeout: .now() + 10), .success)
        // The server finds out at its next write (the keep-alive at the latest).
        stream.push(Array("anyone?\n".utf8))
        XCTAssertEqual(closed.wait(timeout: .now() + 20), .success, "the stream ends when its client goes")
        XCTAssertTrue(stream.isEnded)
    }

    func testTheServerStoppingEndsAnOpenStreamPromptly() throws {
        let stream = HTTPStream()
        let server = try server(stream)
        stream.push(Array("open\n".utf8))
        let follower = Follower(client)
        XCTAssertTrue(follower.waitFor("open\n"))
        let started = Date()
        server.stop()
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "stop does not wait for the keep-alive interval")
        XCTAssertEqual(follower.done.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(stream.isEnded)
    }

    func testAClientThatDoesNotReadIsCut() {
        let stream = HTTPStream(limit: 10)
        XCTAssertTrue(stream.push(Array("12345".utf8)))
        XCTAssertFalse(stream.push(Array("678901".utf8)), "past the limit")
        XCTAssertTrue(stream.isEnded)
    }
}
