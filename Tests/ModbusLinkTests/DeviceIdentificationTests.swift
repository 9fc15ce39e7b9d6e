import Foundation
import LastsetCore
import ModbusLink
import TestSupport
import XCTest

/// FC43/14 (Read Device Identification) against pymodbus' `ModbusDeviceIdentification` over TCP and RTU, and
/// against the libmodbus slave (which has no FC43): every object read equals what the server was given.
final class DeviceIdentificationTests: XCTestCase {
    /// Basic, regular and four 64-byte private objects: more than one answer's 247 bytes, so the device answers
    /// "more follows" and the reading goes on from the next object.
    static let given: [String: String] = [
        "VendorName": "Acme Presses", "ProductCode": "PRS-200", "MajorMinorRevision": "3.1.4",
        "VendorUrl": "https://acme.example", "ProductName": "Press 200", "ModelName": "P200-X",
        "UserApplicationName": "line 7", "0x80": String(repeating: "A", count: 64), "0x81": String(repeating: "B", count: 64),
        "0x82": String(repeating: "C", count: 64), "0x90": String(repeating: "D", count: 64),
    ]

    static func identityFile(_ objects: [String: String]) throws -> String {
        let file = try TestPaths.temporaryDirectory(prefix: "fc43").appendingPathComponent("identity.json")
        try JSONSerialization.data(withJSONObject: objects).write(to: file)
        return file.path
    }

    /// The objects as read, by the names the server was given them under.
    private func named(_ identification: DeviceIdentification) -> [String: String] {
        Dictionary(uniqueKeysWithValues: identification.objects.map { ($0.id.name, $0.text ?? "0x" + $0.hex) })
    }

    func testEveryObjectOverTCPEqualsWhatTheServerWasGivenAcrossMoreFollows() async throws {
        let peer = try PymodbusPeer.startTCP(options: ["--identity", try Self.identityFile(Self.given)])
        addTeardownBlock { peer.stop() }
        let link = ModbusConnection(endpoint: .tcp(host: "127.0.0.1", port: peer.port!), options: fastOptions())
        let identification = try await link.readIdentification(unit: 1)
        XCTAssertEqual(named(identification), Self.given)
        XCTAssertEqual(identification.conformity, ConformityLevel(category: .extended, individualAccess: true))
        XCTAssertEqual(identification.vendorName, "Acme Presses")
        XCTAssertEqual(identification.productCode, "PRS-200")
        XCTAssertEqual(identification.majorMinorRevision, "3.1.4")
        XCTAssertEqual(identification.extendedObjects.map(\.id.name), ["0x80", "0x81", "0x82", "0x90"])
        // basic, then extended from 0x03 (more follows), then the rest from the next object.
        let counters = await link.counters
        XCTAssertEqual(counters.reads, 3, "\(counters)")
        XCTAssertEqual(counters.retries, 0)
        // The connection stays in step: a register read after the raw exchanges gets its own answer.
        let words = try await link.readHoldingRegisters(unit: 1, address: 0, count: 2)
        XCTAssertEqual(words, [0, 0])
        let basicOnly = try await link.readIdentification(unit: 1, upTo: .basic)
        XCTAssertEqual(basicOnly.objects.map(\.id.name), ["VendorName", "ProductCode", "MajorMinorRevision"])
    }

    func testEveryObjectOverRTUEqualsWhatTheServerWasGiven() async throws {
        let pair = try SocatPair.start()
        addTeardownBlock { pair.stop() }
        let peer = try PymodbusPeer.startRTU(path: pair.serverPath, options: ["--identity", try Self.identityFile(Self.given)])
        addTeardownBlock { peer.stop() }
        let link = ModbusConnection(
            endpoint: .rtu(.init(path: pair.clientPath, baud: 19200)), options: fastOptions(timeout: .milliseconds(800)))
        let identification = try await link.readIdentification(unit: 17)
        XCTAssertEqual(named(identification), Self.given)
        let words = try await link.readHoldingRegisters(unit: 17, address: 0, count: 1)
        XCTAssertEqual(words, [0], "the line is in step after the raw exchanges")
        let counters = await link.linkCounters(unit: 17)
        XCTAssertEqual(counters?.crcErrors, 0)
        XCTAssertEqual(counters?.timeouts, 0)
    }

    func testADeviceWithoutFC43AnswersIllegalFunctionAndTheLinkGoesOn() async throws {
        let slave = try ModbusSlave(listen: .tcp(host: "127.0.0.1", port: 0))
        slave.setHoldingRegisters(address: 0, values: [7])
        try slave.start()
        addTeardownBlock { slave.stop() }
        // libmodbus' server sleeps its response timeout (0.5 s) before it answers an unknown function.
        let link = ModbusConnection(endpoint: slave.endpoint, options: fastOptions(timeout: .milliseconds(1500), retries: 2))
        let error = await modbusError { () async throws(ModbusError) in try await link.readIdentification(unit: 1) }
        XCTAssertEqual(error?.exceptionCode, 1, String(describing: error))
        XCTAssertTrue(error?.description.contains("FC43/14, unit 1") ?? false, String(describing: error))
        let retries = await link.counters.retries
        XCTAssertEqual(retries, 0, "exception 01 is an answer, not a transient fault")
        let words = try await link.readHoldingRegisters(unit: 1, address: 0, count: 1)
        XCTAssertEqual(words, [7])
    }

    func testASilentUnitTimesOutWithinItsTimeout() async throws {
        let pair = try SocatPair.start()
        addTeardownBlock { pair.stop() }
        let peer = try PymodbusPeer.startRTU(
            path: pair.serverPath, options: ["--units", "3", "--identity", try Self.identityFile(Self.given)])
        addTeardownBlock { peer.stop() }
        let link = ModbusConnection(
            endpoint: .rtu(.init(path: pair.clientPath, baud: 19200)), options: fastOptions(timeout: .milliseconds(200)))
        let start = ContinuousClock.now
        let error = await modbusError { () async throws(ModbusError) in try await link.readIdentification(unit: 4) }
        XCTAssertEqual(error?.kind, .timeout, String(describing: error))
        // The timeout, then one more for a late reply to drain (the serial line's recovery).
        XCTAssertLessThan(ContinuousClock.now - start, .milliseconds(700))
        let identification = try await link.readIdentification(unit: 3)
        XCTAssertEqual(identification.productCode, "PRS-200")
    }
}
