import LastsetCore
import ModbusLink
import TestSupport
import XCTest

/// ModbusConnection against the pymodbus peer over RTU on a socat pty pair.
final class PymodbusRTUTests: XCTestCase {
    private func startLine(_ options: [String] = [], values: [Int: [UInt16]] = [100: [11, 22, 33]]) throws -> (
        PymodbusPeer, SocatPair, Endpoint
    ) {
        let pair = try SocatPair.start()
        addTeardownBlock { pair.stop() }
        let peer = try PymodbusPeer.startRTU(path: pair.serverPath, options: options, values: values)
        addTeardownBlock { peer.stop() }
        return (peer, pair, .rtu(.init(path: pair.clientPath, baud: 19200)))
    }

    func testReadsWritesAndSeveralUnitsOnOneLine() async throws {
        let (peer, pair, endpoint) = try startLine()
        let link = ModbusConnection(endpoint: endpoint, options: fastOptions(timeout: .milliseconds(500)))
        let holding = try await link.readHoldingRegisters(unit: 1, address: 100, count: 3)
        XCTAssertEqual(holding, [11, 22, 33])
        let input = try await link.readInputRegisters(unit: 7, address: 100, count: 2)
        XCTAssertEqual(input, [11, 22], "the peer answers every unit; one context serves them all")
        try await link.writeRegister(unit: 1, address: 200, value: 42)
        try await link.writeRegisters(unit: 3, address: 201, values: [43, 44])
        let back = try await link.readHoldingRegisters(unit: 1, address: 200, count: 3)
        XCTAssertEqual(back, [42, 43, 44])
        let writes = try peer.writes()
        XCTAssertEqual(writes.map(\.unit), [1, 3])
        XCTAssertEqual(writes.map(\.function), [6, 16])
        await link.close()
        // mbpoll on the same line, as an independent client.
        XCTAssertEqual(try Mbpoll.readHolding(rtu: pair.clientPath, unit: 1, address: 200, count: 3), [42, 43, 44])
        let counters = await link.counters
        XCTAssertEqual(counters.connects, 1)
        XCTAssertEqual(counters.total, 5)
    }

    func testExceptionsAndMaxReadOverRTU() async throws {
        let (_, _, endpoint) = try startLine(["--max-read", "40", "--exception", "300:6"])
        let link = ModbusConnection(endpoint: endpoint, options: fastOptions(timeout: .milliseconds(500), retries: 1))
        let tooMany = await modbusError { () async throws(ModbusError) in
            try await link.readHoldingRegisters(unit: 1, address: 0, count: 41)
        }
        XCTAssertEqual(tooMany?.exceptionCode, 3)
        let busy = await modbusError { () async throws(ModbusError) in
            try await link.writeRegister(unit: 1, address: 300, value: 5)
        }
        XCTAssertEqual(busy?.exceptionCode, 6)
        let values = try await link.readHoldingRegisters(unit: 1, address: 100, count: 40)
        XCTAssertEqual(Array(values.prefix(3)), [11, 22, 33])
        let counters = await link.counters
        XCTAssertEqual(counters.retries, 1)
        XCTAssertEqual(counters.writes, 2)
    }

    func testLateReplyOnTheLineIsNotTakenForTheNextAnswer() async throws {
        // Same function, unit and count: only the drain after a timeout keeps the late reply out.
        let (_, _, endpoint) = try startLine(["--delay", "500:150"], values: [100: [11, 22], 500: [901, 902]])
        let link = ModbusConnection(endpoint: endpoint, options: fastOptions(timeout: .milliseconds(100)))
        let slow = await modbusError { () async throws(ModbusError) in
            try await link.readHoldingRegisters(unit: 1, address: 500, count: 2)
        }
        XCTAssertEqual(slow?.kind, .timeout)
        let next = try await link.readHoldingRegisters(unit: 1, address: 100, count: 2)
        XCTAssertEqual(next, [11, 22])
    }
}
