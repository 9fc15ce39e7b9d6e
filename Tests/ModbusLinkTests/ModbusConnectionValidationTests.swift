import Foundation
import LastsetCore
import ModbusLink
import TestSupport
import XCTest

/// Argument checks happen before anything is sent (no server is needed: nothing is opened).
final class ModbusConnectionValidationTests: XCTestCase {
    let connection = ModbusConnection(endpoint: .tcp(host: "127.0.0.1", port: 1), options: fastOptions())

    func testBadArgumentsAreInvalidRequestsQuotingTheValue() async {
        let cases: [(String, () async throws(ModbusError) -> Void, String)] = [
            (
                "count 0",
                { [connection] () async throws(ModbusError) in
                    _ = try await connection.readHoldingRegisters(unit: 1, address: 0, count: 0)
                }, "count 0"
            ),
            (
                "count 126",
                { [connection] () async throws(ModbusError) in
                    _ = try await connection.readInputRegisters(unit: 1, address: 0, count: 126)
                }, "count 126"
            ),
            (
                "write 124",
                { [connection] () async throws(ModbusError) in
                    try await connection.writeRegisters(unit: 1, address: 0, values: Array(repeating: 1, count: 124))
                }, "count 124"
            ),
            (
                "write empty",
                { [connection] () async throws(ModbusError) in
                    try await connection.writeRegisters(unit: 1, address: 0, values: [])
                }, "count 0"
            ),
            (
                "read unit 0",
                { [connection] () async throws(ModbusError) in
                    _ = try await connection.readHoldingRegisters(unit: 0, address: 0, count: 1)
                }, "unit 0"
            ),
            (
                "unit 248",
                { [connection] () async throws(ModbusError) in try await connection.writeRegister(unit: 248, address: 0, value: 1)
                }, "unit 248"
            ),
            (
                "address -1",
                { [connection] () async throws(ModbusError) in
                    _ = try await connection.readHoldingRegisters(unit: 1, address: -1, count: 1)
                }, "address -1"
            ),
            (
                "past end",
                { [connection] () async throws(ModbusError) in
                    _ = try await connection.readHoldingRegisters(unit: 1, address: 65530, count: 10)
                }, "address 65530"
            ),
        ]
        for (name, body, quoted) in cases {
            let error = await modbusError(body)
            XCTAssertEqual(error?.kind, .invalidRequest, name)
            XCTAssertTrue(error?.message.contains(quoted) ?? false, "\(name): \(String(describing: error))")
        }
        let counters = await connection.counters
        XCTAssertEqual(counters, RequestCounters(), "nothing may reach the wire")
        let open = await connection.isOpen
        XCTAssertFalse(open)
    }

    func testConnectFailureIsTransientConnectError() async {
        // Port 1 on loopback: nothing listens there.
        let error = await modbusError { () async throws(ModbusError) in
            try await connection.readHoldingRegisters(unit: 1, address: 0, count: 1)
        }
        XCTAssertEqual(error?.kind, .connect)
        XCTAssertEqual(error?.errno, ECONNREFUSED)
        XCTAssertTrue(error?.message.contains("tcp://127.0.0.1:1") ?? false, String(describing: error))
        XCTAssertEqual(error?.isTransient, true)
        let counters = await connection.counters
        XCTAssertEqual(counters.reads, 0, "a failed connect sends no request")
    }

    func testPoolSharesOneConnectionPerPeerAndPerSerialLine() async throws {
        let pool = ConnectionPool()
        let a = await pool.connection(for: .tcp(host: "127.0.0.1", port: 5020)).connection
        let b = await pool.connection(for: .tcp(host: "127.0.0.1", port: 5020)).connection
        let c = await pool.connection(for: .tcp(host: "127.0.0.1", port: 5021)).connection
        let line1 = await pool.connection(for: .rtu(.init(path: "/dev/ttyUSB0", baud: 19200))).connection
        let line2 = await pool.connection(for: .rtu(.init(path: "/dev/ttyUSB0", baud: 9600))).connection
        XCTAssertTrue(a === b)
        XCTAssertFalse(a === c)
        XCTAssertTrue(line1 === line2, "one connection per serial line, whatever the framing text")
        let count = await pool.count
        XCTAssertEqual(count, 3)
        await pool.closeAll()
        let after = await pool.count
        XCTAssertEqual(after, 0)
    }

    /// Every spelling of one peer resolves to one machine: one connection, one lock.
    func testEndpointSpellingsOfOnePeerResolveToOneMachine() async throws {
        let pool = ConnectionPool()
        let (first, key) = await pool.connection(for: .tcp(host: "127.0.0.1", port: 5020))
        XCTAssertEqual(key, .tcp(family: 4, address: "127.0.0.1", port: 5020))
        for host in ["localhost", "127.1", "::ffff:127.0.0.1", "127.000.000.001"] {
            let (other, otherKey) = await pool.connection(for: .tcp(host: host, port: 5020))
            XCTAssertEqual(otherKey, key, host)
            XCTAssertTrue(other === first, host)
        }
        let (_, v6) = await pool.connection(for: .tcp(host: "::1", port: 5020))
        XCTAssertEqual(v6, .tcp(family: 6, address: "::1", port: 5020))
        // A serial device by its real path: a symlink to it is the same line.
        let dir = try TestPaths.temporaryDirectory(prefix: "rtu-link")
        defer { try? FileManager.default.removeItem(at: dir) }
        let link = dir.appendingPathComponent("ttyLINK").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/null")
        let (_, viaLink) = await pool.connection(for: .rtu(.init(path: link)))
        let (_, direct) = await pool.connection(for: .rtu(.init(path: "/dev/null")))
        XCTAssertEqual(viaLink, direct)
        XCTAssertEqual(direct, .rtu(realPath: "/dev/null"))
        await pool.closeAll()
    }

    func testErrorDescriptionsNameRequestAndCause() {
        let exception = ModbusError(
            kind: .exception(2), errno: 112_345_680, message: "Illegal data address", request: "read 100+2 (FC03, unit 1)")
        XCTAssertEqual(exception.description, "read 100+2 (FC03, unit 1): exception 02 (Illegal data address)")
        XCTAssertFalse(exception.isTransient)
        XCTAssertTrue(ModbusError(kind: .exception(6), errno: 0, message: "", request: "").isTransient)
    }
}
