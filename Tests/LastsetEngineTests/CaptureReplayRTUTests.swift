import Foundation
import LastsetCore
import LastsetEngine
import ModbusLink
import TestSupport
import XCTest

/// The same capture and replay over Modbus RTU on socat pty pairs: the reference machine is a libmodbus
/// `ModbusSlave`, the new machine the pymodbus peer; mbpoll reads the result over the serial line.
final class CaptureReplayRTUTests: XCTestCase {
    private var cleanup: [() -> Void] = []

    override func tearDown() {
        for c in cleanup.reversed() { c() }
        cleanup = []
    }

    private func target(_ path: String, id: String, limits: DeviceLimits = DeviceLimits()) -> DeviceTarget {
        let endpoint = Endpoint.rtu(.init(path: path, baud: 19200))
        return DeviceTarget(
            deviceId: id, endpoint: endpoint, unit: 1, limits: limits,
            connection: ModbusConnection(endpoint: endpoint, options: LinkOptions(limits)))
    }

    func testCaptureAndReplayOverRTU() async throws {
        let dir = try TestPaths.temporaryDirectory(prefix: "rtu-engine")
        cleanup.append { try? FileManager.default.removeItem(at: dir) }
        let engine = try Engine(dataDirectory: dir)

        let lineA = try SocatPair.start()
        cleanup.append { lineA.stop() }
        let a = try ModbusSlave(listen: .rtu(.init(path: lineA.serverPath, baud: 19200), unit: 1))
        for (address, words) in CaptureReplayTests.sourceValues { a.setHoldingRegisters(address: address, values: words) }
        try a.start()
        cleanup.append { a.stop() }

        let lineB = try SocatPair.start()
        cleanup.append { lineB.stop() }
        let b = try PymodbusPeer.startRTU(
            path: lineB.serverPath, options: ["--unit", "1"], values: CaptureReplayTests.blankValues)
        cleanup.append { b.stop() }

        let capture = await engine.capture(
            page: CaptureReplayTests.page, from: target(lineA.clientPath, id: "press-a"), who: "uid:0")
        XCTAssertTrue(capture.archived, "\(capture.problems) \(capture.error ?? "")")
        XCTAssertEqual(capture.entryCount, 5)

        let report = try await engine.apply(
            page: CaptureReplayTests.page,
            to: target(
                lineB.clientPath, id: "press-b",
                limits: {
                    var l = DeviceLimits()
                    l.timeout = .seconds(1)
                    return l
                }()),
            options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .succeeded, report.reason ?? "")
        XCTAssertEqual(
            try b.writes().map { "\($0.function)@\($0.address)x\($0.count)" },
            ["6@1536x1", "16@100x4", "16@110x8", "6@120x1", "6@2304x1"])

        // An independent client on the same serial line (the replay's connection is idle now).
        let words = try Mbpoll.readHolding(rtu: lineB.clientPath, unit: 1, address: 100, count: 4)
        XCTAssertEqual(words, [2, UInt16(bitPattern: -150), 0xE240, 0x0001])
        XCTAssertEqual(try Mbpoll.readHolding(rtu: lineB.clientPath, unit: 1, address: 200, count: 1), [42])
    }
}
