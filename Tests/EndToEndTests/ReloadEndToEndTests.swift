import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// `lastset reload` / `POST /v1/reload` (the unit's ExecReload) against the real daemon: a refused config must
/// fail the command, so that `systemctl reload` fails too.
final class ReloadEndToEndTests: XCTestCase {
    private func config(devices: [String]) -> String {
        let list = devices.map { "    { id: \"\($0)\", endpoint: \"tcp://127.0.0.1:9\", unit: 1, pages: [\"p\"] }," }
        return """
            { version: 1,
              devices: [
            \(list.joined(separator: "\n"))
              ],
              pages: [ { id: "p", title: "P", registers: [ { registerId: "r", address: 1, type: "u16" } ] } ] }
            """
    }

    func testReloadReportsTheVerdictAndARefusedConfigFailsTheCommand() throws {
        let daemon = try DaemonHarness(config: config(devices: ["a"]))
        try config(devices: ["a", "b"]).write(to: daemon.configURL, atomically: true, encoding: .utf8)
        let accepted = try daemon.cli(["reload"])
        XCTAssertEqual(accepted.status, 0, accepted.stderr)
        XCTAssertEqual(accepted.stdout, "config reloaded from \(daemon.configURL.path): 2 devices, 1 pages\n")
        let notified = daemon.notify.wait(for: "READY=1", timeout: 5)
        XCTAssertTrue(
            notified.found && notified.seen.contains { $0.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") }, "\(notified.seen)")
        XCTAssertEqual(try daemon.decode([DeviceStatus].self, try daemon.api("GET", "/v1/devices")).map(\.id), ["a", "b"])

        try "{ version: 1, history: 0, devices: [], pages: [] }".write(to: daemon.configURL, atomically: true, encoding: .utf8)
        let refused = try daemon.cli(["reload"])
        XCTAssertEqual(refused.status, 1, "a refused reload must fail: \(refused.stdout)")
        XCTAssertTrue(refused.stderr.contains("config reload refused, keeping the running config"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("\(daemon.configURL.path): history"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("(config_invalid)"), refused.stderr)
        XCTAssertEqual(try daemon.decode([DeviceStatus].self, try daemon.api("GET", "/v1/devices")).map(\.id), ["a", "b"])

        let api = try daemon.api("POST", "/v1/reload")
        XCTAssertEqual(api.status, 422)
        XCTAssertTrue(api.text.contains("\"code\":\"config_invalid\""), api.text)
        let wrongMethod = try daemon.api("GET", "/v1/reload")
        XCTAssertEqual(wrongMethod.status, 405)
        XCTAssertEqual(wrongMethod.header("allow"), "POST")
        XCTAssertEqual(daemon.stop(), 0)
    }
}
