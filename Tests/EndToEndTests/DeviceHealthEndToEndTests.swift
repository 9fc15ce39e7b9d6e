import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// A device's health follows what happened on the wire (`CaptureProblem.cause`), not a message's wording.
final class DeviceHealthEndToEndTests: XCTestCase {
    func testAnInvalidValueKeepsADeviceReachableAndASilentDeviceIsNot() throws {
        var values = DaemonEndToEndTests.reference
        values[101] = [950]  // above the setpoint's max 900: the device answered, the value is bad
        let a = try PymodbusPeer.startTCP(values: values)
        defer { a.stop() }
        let daemon = try DaemonHarness(
            config: """
                { version: 1,
                  devices: [
                    { id: "press-a", endpoint: "tcp://127.0.0.1:\(a.port!)", unit: 1, pages: ["heating"] },
                    { id: "gone", endpoint: "tcp://127.0.0.1:1", unit: 1, pages: ["heating"],
                      quirks: { timeout: "100ms", retries: 0 } },
                  ],
                \(DaemonEndToEndTests.pages)
                }
                """)
        let invalid = try daemon.decode(
            JobInfo.self, try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#))
        XCTAssertEqual(invalid.capture?.archived, false)
        XCTAssertEqual(invalid.capture?.problems.map(\.cause), [.invalidValue])
        let lost = try daemon.decode(
            JobInfo.self, try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"gone"}"#))
        XCTAssertEqual(Set(lost.capture?.problems.map(\.cause) ?? []), [.readFailed, .identityReadFailed])
        let devices = try daemon.decode([DeviceStatus].self, try daemon.api("GET", "/v1/devices"))
        XCTAssertEqual(devices.first { $0.id == "press-a" }?.reachable, true)
        XCTAssertNil(devices.first { $0.id == "press-a" }?.lastError)
        XCTAssertEqual(devices.first { $0.id == "gone" }?.reachable, false)
        XCTAssertTrue(devices.first { $0.id == "gone" }?.lastError?.contains("read failed") ?? false, "\(devices)")
        XCTAssertEqual(daemon.stop(), 0)
    }
}
