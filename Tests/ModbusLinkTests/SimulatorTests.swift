import Foundation
import LastsetCore
import ModbusLink
import TestSupport
import XCTest

/// The `lastset-sim` binary, driven through its command line, with the ModbusConnection client and mbpoll.
final class SimulatorTests: XCTestCase {
    static let config = """
        // JSON5, as users write it
        {
          version: 1,
          devices: [
            { id: "press-1", endpoint: "tcp://127.0.0.1:15020", unit: 3, pages: ["heating"] },
          ],
          pages: [
            {
              id: "heating",
              title: "Heating",
              identity: [ { registerId: "model", address: 0, type: "string(8)" } ],
              registers: [
                { registerId: "heating.mode", address: 100, type: "u16", enum: [0, 1, 2] },
                { registerId: "heating.setpoint", address: 101, type: "s16", min: -200, max: 900 },
                { registerId: "heating.energy", address: 102, type: "u32", wordOrder: "little" },
                { registerId: "heating.label", address: 110, type: "string(4)" },
              ],
            },
            { id: "other", registers: [ { registerId: "other.x", address: 300, type: "u16" } ] },
          ],
        }
        """

    private func files(values: String? = nil) throws -> (config: String, values: String?) {
        let dir = try TestPaths.temporaryDirectory(prefix: "sim")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("lastset.json")
        try Self.config.write(to: config, atomically: true, encoding: .utf8)
        guard let values else { return (config.path, nil) }
        let valuesFile = dir.appendingPathComponent("values.json")
        try values.write(to: valuesFile, atomically: true, encoding: .utf8)
        return (config.path, valuesFile.path)
    }

    private func start(_ arguments: [String]) throws -> SimulatorProcess {
        let sim = try SimulatorProcess.start(arguments)
        addTeardownBlock { sim.stop() }
        return sim
    }

    func testServesUnsetDefaultsAndInitialValuesOverTCP() async throws {
        let (config, values) = try files(
            values: #"{"model": "PX-200", "heating.setpoint": -15, "heating.energy": 70000, "1536": 4}"#)
        let sim = try start([
            "--config", config, "--device", "press-1", "--tcp", "127.0.0.1:0", "--values", values!, "--log-writes",
        ])
        let port = try XCTUnwrap(sim.port, sim.process.readyLine)
        XCTAssertEqual(sim.process.readyLine, "READY tcp 127.0.0.1:\(port)")
        let link = ModbusConnection(endpoint: .tcp(host: "127.0.0.1", port: port), options: fastOptions())

        let page = try await link.readHoldingRegisters(unit: 3, address: 100, count: 4)
        // mode unset (0xFFFF), setpoint -15, energy 70000 = 0x0001_1170 with the low word first.
        XCTAssertEqual(page, [0xFFFF, UInt16(bitPattern: -15), 0x1170, 0x0001])
        let label = try await link.readHoldingRegisters(unit: 3, address: 110, count: 2)
        XCTAssertEqual(label, [0xFFFF, 0xFFFF], "strings are unset as all 0xFF bytes")
        let model = try await link.readInputRegisters(unit: 3, address: 0, count: 4)
        XCTAssertEqual(model.bigEndianBytes.prefix(6), Array("PX-200".utf8)[...])
        let raw = try await link.readHoldingRegisters(unit: 3, address: 1536, count: 1)
        XCTAssertEqual(raw, [4])
        let other = try await link.readHoldingRegisters(unit: 3, address: 300, count: 1)
        XCTAssertEqual(other, [0], "pages of other devices are not served")

        try await link.writeRegisters(unit: 3, address: 100, values: [2, 500])
        try await link.writeRegister(unit: 3, address: 2304, value: 0)
        XCTAssertEqual(try Mbpoll.readHolding(port: port, unit: 3, address: 100, count: 2), [2, 500])
        let lines = sim.process.waitForLines(count: 2) { $0.hasPrefix("WRITE ") }
        XCTAssertEqual(
            lines,
            [
                "WRITE fc=16 unit=3 address=100 count=2 values=2,500",
                "WRITE fc=6 unit=3 address=2304 count=1 values=0",
            ])

        // SIGTERM stops it cleanly.
        sim.process.signal(SIGTERM)
        XCTAssertEqual(sim.process.process.waitForExit(), 0, "exit status 0, not killed by the signal")
    }

    func testFaultFlags() async throws {
        let (config, _) = try files()
        let sim = try start([
            "--config", config, "--page", "heating", "--tcp", "127.0.0.1:0", "--max-read", "40", "--refuse-fc16", "--exception",
            "101:6", "--delay-ms", "1",
        ])
        let link = ModbusConnection(
            endpoint: .tcp(host: "127.0.0.1", port: try XCTUnwrap(sim.port)), options: fastOptions(retries: 1))
        let tooMany = await modbusError { () async throws(ModbusError) in
            try await link.readHoldingRegisters(unit: 1, address: 100, count: 41)
        }
        XCTAssertEqual(tooMany?.exceptionCode, 3)
        let refused = await modbusError { () async throws(ModbusError) in
            try await link.writeRegisters(unit: 1, address: 110, values: [1, 2])
        }
        XCTAssertEqual(refused?.exceptionCode, 1)
        let busy = await modbusError { () async throws(ModbusError) in
            try await link.writeRegister(unit: 1, address: 101, value: 1)
        }
        XCTAssertEqual(busy?.exceptionCode, 6)
        let counters = await link.counters
        XCTAssertEqual(counters.retries, 1)
    }

    func testServesOverRTUOnAPtyPair() async throws {
        let pair = try SocatPair.start()
        addTeardownBlock { pair.stop() }
        let (config, values) = try files(values: #"{"heating.mode": 1}"#)
        let sim = try start([
            "--config", config, "--page", "heating", "--rtu", pair.serverPath, "--unit", "9", "--values", values!,
        ])
        XCTAssertEqual(sim.process.readyLine, "READY rtu \(pair.serverPath)")
        let link = ModbusConnection(
            endpoint: .rtu(.init(path: pair.clientPath)), options: fastOptions(timeout: .milliseconds(300)))
        let words = try await link.readHoldingRegisters(unit: 9, address: 100, count: 2)
        XCTAssertEqual(words, [1, 0x7FFF], "the s16 setpoint is unset at 0x7FFF")
        try await link.writeRegister(unit: 9, address: 101, value: 250)
        let back = try await link.readHoldingRegisters(unit: 9, address: 101, count: 1)
        XCTAssertEqual(back, [250])
    }

    func testUsageAndConfigErrors() throws {
        let (config, values) = try files(values: #"{"no.such": 1}"#)
        for (arguments, status, fragment) in [
            (["--tcp", "127.0.0.1:0"], Int32(64), "--config FILE is required"),
            (["--config", config, "--tcp", "nonsense"], 64, "\"nonsense\""),
            (["--config", config, "--tcp", "127.0.0.1:0", "--device", "nope"], 1, "\"nope\""),
            (["--config", config, "--tcp", "127.0.0.1:0", "--values", values!], 1, "\"no.such\""),
            (["--config", "/nonexistent.json", "--tcp", "127.0.0.1:0"], 1, "/nonexistent.json"),
        ] {
            let process = try PeerProcess.start(try TestPaths.executable("lastset-sim"), arguments, readyPrefix: nil)
            XCTAssertEqual(process.process.waitForExit(), status, "\(arguments)")
            let deadline = Date().addingTimeInterval(2)
            while !process.stderr.contains(fragment) && Date() < deadline { usleep(10_000) }
            XCTAssertTrue(process.stderr.contains(fragment), "\(arguments): \(process.stderr)")
        }
    }
}
