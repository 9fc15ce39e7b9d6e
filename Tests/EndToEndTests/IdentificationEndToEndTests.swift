import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// FC43/14 through the real daemon and CLI against pymodbus peers with a `ModbusDeviceIdentification`:
/// `lastset identify` shows what the server was given, and a page whose identity names FC43 objects refuses a
/// replay to another product or revision before the first frame (the peer's write log stays empty), and writes
/// to an accepted one (checked with mbpoll).
final class IdentificationEndToEndTests: XCTestCase {

    private func press(product: String, revision: String, values: [Int: [UInt16]] = [:]) throws -> PymodbusPeer {
        let identity = try Self.identityFile([
            "VendorName": "Acme Presses", "ProductCode": product, "MajorMinorRevision": revision, "ModelName": "P-X",
            "0x81": "line 7",
        ])
        let p = try pymodbusPeer(values, ["--identity", identity])
        return p
    }

    static func identityFile(_ objects: [String: String]) throws -> String {
        let file = try TestPaths.temporaryDirectory(prefix: "fc43").appendingPathComponent("identity.json")
        try JSONSerialization.data(withJSONObject: objects).write(to: file)
        return file.path
    }

    private static func config(_ ports: [Int]) -> String {
        let devices = ports.enumerated().map { i, port in
            #"{ id: "press-\#(i)", endpoint: "tcp://127.0.0.1:\#(port)", unit: 1, pages: ["heating"] },"#
        }
        return """
            { version: 1,
              devices: [ \(devices.joined(separator: "\n")) ],
              pages: [
                { id: "heating", title: "Heating",
                  identity: [ { object: "ProductCode" }, { object: "MajorMinorRevision", match: "^3\\\\." } ],
                  registers: [
                    { registerId: "heating.mode", address: 100, type: "u16" },
                    { registerId: "heating.setpoint", address: 101, type: "s16" },
                  ] },
              ],
            }
            """
    }

    func testIdentifyShowsWhatTheServerWasGiven() throws {
        let a = try press(product: "PRS-200", revision: "3.1.4")
        let daemon = try DaemonHarness(config: Self.config([a.port!]))
        let text = try daemon.cli(["identify", "press-0"])
        XCTAssertEqual(text.status, 0, text.stdout + text.stderr)
        for line in [
            "vendor       Acme Presses", "product code PRS-200", "revision     3.1.4", "conformity   extended, individual access",
        ] {
            XCTAssertTrue(text.stdout.contains(line), "\(line)\n\(text.stdout)")
        }
        XCTAssertTrue(text.stdout.contains("ModelName") && text.stdout.contains("P-X"), text.stdout)
        XCTAssertTrue(text.stdout.contains("0x81") && text.stdout.contains("line 7"), text.stdout)

        let json = try daemon.cli(["--json", "identify", "tcp://127.0.0.1:\(a.port!)", "--unit", "1"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let report = try JSONDecoder().decode(IdentifyReport.self, from: Data(json.stdout.utf8))
        XCTAssertEqual(report.device, "press-0", "an endpoint that is a configured device is that device")
        let objects = Dictionary(uniqueKeysWithValues: report.objects.map { ($0.id.name, $0.text ?? "") })
        XCTAssertEqual(
            objects,
            [
                "VendorName": "Acme Presses", "ProductCode": "PRS-200", "MajorMinorRevision": "3.1.4", "ModelName": "P-X",
                "0x81": "line 7",
            ])

        let unsupported = try daemon.cli(["identify", "tcp://127.0.0.1:1", "--unit", "1"])
        XCTAssertEqual(unsupported.status, 1, unsupported.stdout)
        XCTAssertTrue(unsupported.stderr.contains("cannot identify"), unsupported.stderr)
        let usage = try daemon.cli(["identify", "press-0", "--unit", "3"])
        XCTAssertEqual(usage.status, 64, usage.stderr)
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testAReplayToAnotherProductOrRevisionIsRefusedBeforeTheFirstFrame() throws {
        let source = try press(product: "PRS-200", revision: "3.1.4", values: [100: [2], 101: [215]])
        let otherProduct = try press(product: "PRS-300", revision: "3.1.4")
        let otherRevision = try press(product: "PRS-200", revision: "4.0.0")
        let accepted = try press(product: "PRS-200", revision: "3.2.0")
        let daemon = try DaemonHarness(config: Self.config([source, otherProduct, otherRevision, accepted].map { $0.port! }))
        let capture = try daemon.cli(["capture", "heating", "--from", "press-0"])
        XCTAssertEqual(capture.status, 0, capture.stdout + capture.stderr)
        let show = try daemon.cli(["--json", "show", "heating"])
        XCTAssertTrue(show.stdout.contains("fc43:ProductCode") && show.stdout.contains("PRS-200"), show.stdout)

        let refusedProduct = try daemon.cli(["apply", "heating", "--to", "press-1"])
        XCTAssertEqual(refusedProduct.status, 1, refusedProduct.stdout)
        XCTAssertTrue(refusedProduct.stdout.contains("fc43:ProductCode"), refusedProduct.stdout)
        XCTAssertTrue(refusedProduct.stdout.contains("PRS-300"), refusedProduct.stdout)
        let refusedRevision = try daemon.cli(["apply", "heating", "--to", "press-2"])
        XCTAssertEqual(refusedRevision.status, 1, refusedRevision.stdout)
        XCTAssertTrue(refusedRevision.stdout.contains(#""4.0.0" does not match "^3\.""#), refusedRevision.stdout)
        // From the devices' side: no write request reached either.
        XCTAssertEqual(try otherProduct.writes().count, 0)
        XCTAssertEqual(try otherRevision.writes().count, 0)
        XCTAssertEqual(try Mbpoll.readHolding(port: otherProduct.port!, unit: 1, address: 100, count: 2), [0, 0])

        let applied = try daemon.cli(["apply", "heating", "--to", "press-3"])
        XCTAssertEqual(applied.status, 0, applied.stdout + applied.stderr)
        XCTAssertEqual(try Mbpoll.readHolding(port: accepted.port!, unit: 1, address: 100, count: 2), [2, 215])
        XCTAssertEqual(daemon.stop(), 0)
    }
}
