import LastsetCore
import ModbusLink
import TestSupport
import XCTest

/// ModbusConnection against the independent pymodbus peer over TCP, cross-checked with mbpoll.
final class PymodbusTCPTests: XCTestCase {
    private func startPeer(_ options: [String] = [], values: [Int: [UInt16]] = [100: [11, 22, 33]]) throws -> (
        PymodbusPeer, Endpoint
    ) {
        let peer = try PymodbusPeer.startTCP(options: options, values: values)
        addTeardownBlock { peer.stop() }
        return (peer, .tcp(host: "127.0.0.1", port: peer.port!))
    }

    func testReadsAndWritesCheckedByReadBackAndMbpoll() async throws {
        let (peer, endpoint) = try startPeer()
        let link = ModbusConnection(endpoint: endpoint, options: fastOptions())
        let holding = try await link.readHoldingRegisters(unit: 1, address: 100, count: 3)
        XCTAssertEqual(holding, [11, 22, 33])
        let input = try await link.readInputRegisters(unit: 1, address: 100, count: 3)
        XCTAssertEqual(input, [11, 22, 33], "the peer serves FC04 from the same block")

        try await link.writeRegister(unit: 1, address: 200, value: 0xBEEF)
        try await link.writeRegisters(unit: 1, address: 201, values: [1, 2, 3, 65535])
        let back = try await link.readHoldingRegisters(unit: 1, address: 200, count: 5)
        XCTAssertEqual(back, [0xBEEF, 1, 2, 3, 65535])
        XCTAssertEqual(try Mbpoll.readHolding(port: peer.port!, unit: 1, address: 200, count: 5), [0xBEEF, 1, 2, 3, 65535])

        // And the other way round: what mbpoll writes, we read.
        try Mbpoll.writeHolding(port: peer.port!, unit: 1, address: 300, values: [7, 8])
        let written = try await link.readHoldingRegisters(unit: 1, address: 300, count: 2)
        XCTAssertEqual(written, [7, 8])

        let writes = try peer.writes()
        XCTAssertEqual(writes.map(\.function), [6, 16, 16], "\(writes)")
        XCTAssertEqual(writes.map(\.address), [200, 201, 300])
        XCTAssertEqual(writes[1].values, [1, 2, 3, 65535])
        let counters = await link.counters
        XCTAssertEqual(counters.reads, 4)
        XCTAssertEqual(counters.writes, 2)
        XCTAssertEqual(counters.retries, 0)
        XCTAssertEqual(counters.connects, 1)
    }

    func testExceptionsMapToModbusErrors() async throws {
        let (peer, endpoint) = try startPeer([
            "--size", "1000", "--max-read", "40", "--exception", "500:2", "--refuse-fc16", "--clamp", "20:100",
        ])
        let link = ModbusConnection(endpoint: endpoint, options: fastOptions(retries: 2))

        let outside = await modbusError { () async throws(ModbusError) in
            try await link.readHoldingRegisters(unit: 1, address: 990, count: 20)
        }
        XCTAssertEqual(outside?.exceptionCode, 2)
        XCTAssertTrue(outside?.description.contains("read 990+20") ?? false, String(describing: outside))
        XCTAssertTrue(outside?.message.contains("Illegal data address") ?? false, String(describing: outside))

        let tooMany = await modbusError { () async throws(ModbusError) in
            try await link.readHoldingRegisters(unit: 1, address: 0, count: 41)
        }
        XCTAssertEqual(tooMany?.exceptionCode, 3)
        let fits = try await link.readHoldingRegisters(unit: 1, address: 0, count: 40)
        XCTAssertEqual(fits.count, 40)

        let marked = await modbusError { () async throws(ModbusError) in
            try await link.writeRegister(unit: 1, address: 500, value: 1)
        }
        XCTAssertEqual(marked?.exceptionCode, 2)

        let refused = await modbusError { () async throws(ModbusError) in
            try await link.writeRegisters(unit: 1, address: 20, values: [1, 2])
        }
        XCTAssertEqual(refused?.exceptionCode, 1, "a device without FC16")
        try await link.writeRegister(unit: 1, address: 20, value: 500)
        let clamped = try await link.readHoldingRegisters(unit: 1, address: 20, count: 1)
        XCTAssertEqual(clamped, [100], "the device clamped the value: only a read-back shows it")
        let writes = try peer.writes()
        XCTAssertEqual(writes.map(\.function), [6, 16, 6])
        XCTAssertEqual(writes.map(\.exception), [2, 1, nil], "refused writes are logged with their exception")

        let counters = await link.counters
        XCTAssertEqual(counters.retries, 0, "01, 02 and 03 are permanent: never retried")
        XCTAssertEqual(counters.reads, 4)
        XCTAssertEqual(counters.writes, 3)
    }

    func testBusyIsRetriedThenFailsAfterRetries() async throws {
        let (_, endpoint) = try startPeer(["--exception", "300:6", "--exception", "310:6:2"])
        let link = ModbusConnection(endpoint: endpoint, options: fastOptions(retries: 2))

        let busy = await modbusError { () async throws(ModbusError) in
            try await link.readHoldingRegisters(unit: 1, address: 300, count: 1)
        }
        XCTAssertEqual(busy?.exceptionCode, 6)
        var counters = await link.counters
        XCTAssertEqual(counters.reads, 3, "one request plus two retries on the wire")
        XCTAssertEqual(counters.retries, 2)

        // Busy twice, then served: the third attempt succeeds.
        await link.resetCounters()
        let value = try await link.readHoldingRegisters(unit: 1, address: 310, count: 1)
        XCTAssertEqual(value, [0])
        counters = await link.counters
        XCTAssertEqual(counters.reads, 3)
        XCTAssertEqual(counters.retries, 2)
    }

    func testSlowReplyTimesOutAndTheNextRequestGetsItsOwnValue() async throws {
        let (_, endpoint) = try startPeer(["--delay", "500:400"], values: [100: [11, 22, 33], 500: [999, 998, 997]])
        let link = ModbusConnection(endpoint: endpoint, options: fastOptions(timeout: .milliseconds(100)))
        let start = ContinuousClock.now
        let slow = await modbusError { () async throws(ModbusError) in
            try await link.readHoldingRegisters(unit: 1, address: 500, count: 3)
        }
        XCTAssertEqual(slow?.kind, .timeout)
        XCTAssertEqual(slow?.errno, ETIMEDOUT)
        XCTAssertLessThan(ContinuousClock.now - start, .milliseconds(350), "the timeout bounds the wait")
        // Issued while the late reply is still pending on the server: must not be taken for ours.
        for _ in 0..<5 {
            let value = try await link.readHoldingRegisters(unit: 1, address: 100, count: 3)
            XCTAssertEqual(value, [11, 22, 33])
        }
        try await Task.sleep(for: .milliseconds(400))
        let after = try await link.readHoldingRegisters(unit: 1, address: 100, count: 3)
        XCTAssertEqual(after, [11, 22, 33], "a reply arriving late is never handed to a later request")
    }

    func testDroppedConnectionFailsThenReconnects() async throws {
        let (_, endpoint) = try startPeer(["--drop-after", "2"])
        let link = ModbusConnection(endpoint: endpoint, options: fastOptions())
        _ = try await link.readHoldingRegisters(unit: 1, address: 100, count: 1)
        _ = try await link.readHoldingRegisters(unit: 1, address: 100, count: 1)
        let dropped = await modbusError { () async throws(ModbusError) in
            try await link.readHoldingRegisters(unit: 1, address: 100, count: 1)
        }
        XCTAssertEqual(dropped?.kind, .disconnected, String(describing: dropped))
        XCTAssertEqual(dropped?.isTransient, true)
        let value = try await link.readHoldingRegisters(unit: 1, address: 100, count: 3)
        XCTAssertEqual(value, [11, 22, 33])
        let counters = await link.counters
        XCTAssertEqual(counters.connects, 2)

        // With retries the drop is invisible to the caller.
        let retrying = ModbusConnection(endpoint: endpoint, options: fastOptions(retries: 2))
        for _ in 0..<3 { _ = try await retrying.readHoldingRegisters(unit: 1, address: 100, count: 1) }
        let retried = await retrying.counters
        XCTAssertEqual(retried.retries, 1)
        XCTAssertEqual(retried.reads, 4)
    }

    func testConnectionsToSlowDevicesRunInParallelOffTheCooperativePool() async throws {
        let (_, endpoint) = try startPeer(["--delay-ms", "300"])
        let links = (0..<12).map { _ in ModbusConnection(endpoint: endpoint, options: fastOptions(timeout: .seconds(3))) }
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: [UInt16].self) { group in
            for link in links {
                group.addTask { try await link.readHoldingRegisters(unit: 1, address: 100, count: 1) }
            }
            for try await value in group { XCTAssertEqual(value, [11]) }
        }
        let elapsed = ContinuousClock.now - start
        // Blocking calls on the 2-core cooperative pool would take about 12 × 0.3 s / 2.
        XCTAssertLessThan(elapsed, .milliseconds(1500), "12 blocking 300 ms requests took \(elapsed)")
    }
}
