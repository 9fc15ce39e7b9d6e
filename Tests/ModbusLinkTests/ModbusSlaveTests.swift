import LastsetCore
import ModbusLink
import TestSupport
import XCTest

/// The libmodbus slave (used by lastset-sim and the engine tests) with the ModbusConnection client and mbpoll.
final class ModbusSlaveTests: XCTestCase {
    private func startTCP(_ faults: SlaveFaults = SlaveFaults()) throws -> ModbusSlave {
        let slave = try ModbusSlave(listen: .tcp(host: "127.0.0.1", port: 0), faults: faults)
        slave.setHoldingRegisters(address: 100, values: [11, 22, 33])
        slave.setInputRegisters(address: 100, values: [44, 55])
        try slave.start()
        addTeardownBlock { slave.stop() }
        return slave
    }

    func testTCPReadsWritesAndRecordsWritesInOrder() async throws {
        let slave = try startTCP()
        XCTAssertGreaterThan(slave.port, 0)
        XCTAssertEqual(slave.listenDescription, "tcp 127.0.0.1:\(slave.port)")
        let link = ModbusConnection(endpoint: slave.endpoint, options: fastOptions())
        let holding = try await link.readHoldingRegisters(unit: 1, address: 100, count: 3)
        XCTAssertEqual(holding, [11, 22, 33])
        let input = try await link.readInputRegisters(unit: 1, address: 100, count: 2)
        XCTAssertEqual(input, [44, 55])
        try await link.writeRegisters(unit: 1, address: 10, values: [1, 2, 3])
        try await link.writeRegister(unit: 1, address: 5, value: 9)
        try await link.writeRegister(unit: 2, address: 11, value: 20)
        XCTAssertEqual(slave.holdingRegisters(address: 10, count: 3), [1, 20, 3])
        XCTAssertEqual(try Mbpoll.readHolding(port: slave.port, unit: 1, address: 10, count: 3), [1, 20, 3])
        try Mbpoll.writeHolding(port: slave.port, unit: 1, address: 0, values: [77])
        XCTAssertEqual(
            slave.writes,
            [
                SlaveWrite(function: 16, unit: 1, address: 10, values: [1, 2, 3]),
                SlaveWrite(function: 6, unit: 1, address: 5, values: [9]),
                SlaveWrite(function: 6, unit: 2, address: 11, values: [20]),
                SlaveWrite(function: 6, unit: 1, address: 0, values: [77]),
            ])
        XCTAssertEqual(slave.writes[0].description, "WRITE fc=16 unit=1 address=10 count=3 values=1,2,3")
        XCTAssertEqual(slave.requestCount, 6 + 1, "five client requests, one mbpoll read, one mbpoll write")
    }

    func testFaultsMaxReadExceptionRefusedFC16AndClamp() async throws {
        let slave = try startTCP(
            SlaveFaults(maxReadRegisters: 40, exceptions: [600: 6, 700: 2], refuseFC16: true, clamps: [50: 1000]))
        let link = ModbusConnection(endpoint: slave.endpoint, options: fastOptions(retries: 2))
        let tooMany = await modbusError { () async throws(ModbusError) in
            try await link.readHoldingRegisters(unit: 1, address: 0, count: 41)
        }
        XCTAssertEqual(tooMany?.exceptionCode, 3)
        let forty = try await link.readHoldingRegisters(unit: 1, address: 80, count: 40)
        XCTAssertEqual(Array(forty[20..<23]), [11, 22, 33])

        let refused = await modbusError { () async throws(ModbusError) in
            try await link.writeRegisters(unit: 1, address: 50, values: [1, 2])
        }
        XCTAssertEqual(refused?.exceptionCode, 1)
        try await link.writeRegister(unit: 1, address: 50, value: 5000)
        let clamped = try await link.readHoldingRegisters(unit: 1, address: 50, count: 1)
        XCTAssertEqual(clamped, [1000])

        let busy = await modbusError { () async throws(ModbusError) in
            try await link.readHoldingRegisters(unit: 1, address: 595, count: 10)
        }
        XCTAssertEqual(busy?.exceptionCode, 6)
        let illegal = await modbusError { () async throws(ModbusError) in
            try await link.writeRegister(unit: 1, address: 700, value: 1)
        }
        XCTAssertEqual(illegal?.exceptionCode, 2)

        XCTAssertEqual(slave.writes.map(\.exception), [1, nil, 2])
        let counters = await link.counters
        XCTAssertEqual(counters.retries, 2, "only the busy read was retried")
        XCTAssertEqual(counters.reads, 3 + 3, "three reads, the busy one sent three times")
    }

    func testSlowSlaveTimesOutThenAnswersTheNextRequestCorrectly() async throws {
        let slave = try startTCP(SlaveFaults(responseDelay: .milliseconds(250)))
        let link = ModbusConnection(endpoint: slave.endpoint, options: fastOptions(timeout: .milliseconds(100)))
        let slow = await modbusError { () async throws(ModbusError) in
            try await link.readHoldingRegisters(unit: 1, address: 102, count: 1)
        }
        XCTAssertEqual(slow?.kind, .timeout)
        slave.faults = SlaveFaults()
        // The single-threaded slave is still sleeping on the first request: allow for it this time.
        let value = try await link.readHoldingRegisters(
            unit: 1, address: 100, count: 2, options: fastOptions(timeout: .seconds(2)))
        XCTAssertEqual(value, [11, 22])
    }

    func testSeveralClientsAtOnce() async throws {
        let slave = try startTCP()
        let links = (0..<6).map { _ in ModbusConnection(endpoint: slave.endpoint, options: fastOptions(timeout: .seconds(2))) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, link) in links.enumerated() {
                group.addTask {
                    for j in 0..<20 {
                        try await link.writeRegister(unit: 1, address: 1000 + i, value: UInt16(j))
                        let back = try await link.readHoldingRegisters(unit: 1, address: 1000 + i, count: 1)
                        XCTAssertEqual(back, [UInt16(j)])
                    }
                }
            }
            try await group.waitForAll()
        }
        XCTAssertEqual(slave.writes.count, 120)
        XCTAssertEqual(slave.holdingRegisters(address: 1000, count: 6), Array(repeating: 19, count: 6))
    }

    func testStopClosesTheListenerAndClientsSeeIt() async throws {
        let slave = try startTCP()
        let link = ModbusConnection(endpoint: slave.endpoint, options: fastOptions())
        _ = try await link.readHoldingRegisters(unit: 1, address: 100, count: 1)
        slave.stop()
        let error = await modbusError { () async throws(ModbusError) in
            try await link.readHoldingRegisters(unit: 1, address: 100, count: 1)
        }
        XCTAssertNotNil(error)
        XCTAssertEqual(error?.isTransient, true, String(describing: error))
        slave.stop()  // idempotent
    }

    func testRTUSlaveOnPtyPair() async throws {
        let pair = try SocatPair.start()
        addTeardownBlock { pair.stop() }
        let slave = try ModbusSlave(listen: .rtu(.init(path: pair.serverPath), unit: 5))
        slave.setHoldingRegisters(address: 0, values: [1, 2, 3, 4])
        try slave.start()
        addTeardownBlock { slave.stop() }
        XCTAssertEqual(slave.listenDescription, "rtu \(pair.serverPath)")

        let link = ModbusConnection(
            endpoint: .rtu(.init(path: pair.clientPath)), options: fastOptions(timeout: .milliseconds(200)))
        let values = try await link.readHoldingRegisters(unit: 5, address: 0, count: 4)
        XCTAssertEqual(values, [1, 2, 3, 4])
        try await link.writeRegisters(unit: 5, address: 1, values: [20, 30])
        try await link.writeRegister(unit: 5, address: 3, value: 40)
        let back = try await link.readHoldingRegisters(unit: 5, address: 0, count: 4)
        XCTAssertEqual(back, [1, 20, 30, 40])
        XCTAssertEqual(slave.writes.map(\.function), [16, 6])

        // A broadcast write (unit 0) gets no reply on a serial line: it succeeds after the timeout.
        try await link.writeRegister(unit: 0, address: 4, value: 99)
        XCTAssertEqual(slave.holdingRegisters(address: 4, count: 1), [99])
        XCTAssertEqual(slave.writes.last, SlaveWrite(function: 6, unit: 0, address: 4, values: [99]))

        await link.close()
        XCTAssertEqual(try Mbpoll.readHolding(rtu: pair.clientPath, unit: 5, address: 0, count: 4), [1, 20, 30, 40])
    }
}
