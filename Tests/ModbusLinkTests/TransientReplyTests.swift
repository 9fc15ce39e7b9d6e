import Foundation
import LastsetCore
import ModbusLink
import TestSupport
import XCTest

/// Replies garbled on the way are transient: the connection flushes (RTU) or reopens (TCP) and retries within
/// the budget, and counts what it met.
final class TransientReplyTests: XCTestCase {
    /// A reply with another request's transaction id used to fail the request outright.
    func testAReplyWithTheWrongTransactionIdIsRetriedOnAFreshConnection() async throws {
        let server = try PeerProcess.start(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [TestPaths.peersDirectory.appendingPathComponent("wrong_tid_server.py").path, "--wrong", "1"])
        defer { server.terminate() }
        let port = try XCTUnwrap(Int(server.readyLine.split(separator: " ").last ?? ""))
        let connection = ModbusConnection(
            endpoint: .tcp(host: "127.0.0.1", port: port), options: LinkOptions(timeout: .milliseconds(200), retries: 2))
        let words = try await connection.readHoldingRegisters(unit: 1, address: 10, count: 3)
        XCTAssertEqual(words, [10, 11, 12])
        XCTAssertNotNil(server.waitForLine(timeout: 2) { $0 == "WRONG 1" })
        let counters = try await XCTUnwrapAsync(await connection.linkCounters(unit: 1))
        XCTAssertEqual(counters, LinkCounters(requests: 2, retries: 1, badReplies: 1))
        let wire = await connection.counters
        XCTAssertEqual(wire.connects, 2, "the desynchronised socket was replaced")

        // Past the budget it is still reported, as a bad reply.
        let again = try PeerProcess.start(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [TestPaths.peersDirectory.appendingPathComponent("wrong_tid_server.py").path, "--wrong", "5"])
        defer { again.terminate() }
        let strictPort = try XCTUnwrap(Int(again.readyLine.split(separator: " ").last ?? ""))
        let noRetry = ModbusConnection(
            endpoint: .tcp(host: "127.0.0.1", port: strictPort), options: LinkOptions(timeout: .milliseconds(200), retries: 0))
        do {
            _ = try await noRetry.readHoldingRegisters(unit: 1, address: 0, count: 1)
            XCTFail("a wrong transaction id was taken for the answer")
        } catch {
            XCTAssertEqual(error.kind, .badReply, "\(error)")
        }
    }
}

/// `XCTUnwrap` for a value produced by an `await`.
func XCTUnwrapAsync<T>(_ value: @autoclosure () async throws -> T?, file: StaticString = #filePath, line: UInt = #line)
    async throws -> T
{
    let v = try await value()
    return try XCTUnwrap(v, file: file, line: line)
}
