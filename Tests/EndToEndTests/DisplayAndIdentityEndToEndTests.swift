import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// Issue 19, defect 16, through the real daemon and CLI against pymodbus peers: an identity recorded in
/// lower-case hex matches the machine (identities are compared as words), a u64 is checked against its
/// bound exactly (not against the nearest Double), and a float is shown with its digits, not rounded to
/// its scale's decimals.
final class DisplayAndIdentityEndToEndTests: XCTestCase {

    /// 2^53 + 3: the nearest Double is 2^53 + 4.
    private static let bound: UInt64 = 9_007_199_254_740_995
    private static func u64Words(_ v: UInt64) -> [UInt16] { (0..<4).map { UInt16(truncatingIfNeeded: v >> (48 - 16 * $0)) } }
    private static let model = DaemonEndToEndTests.text("PRS-200", bytes: 8)

    private static func config(a: Int, b: Int) -> String {
        """
        { version: 1,
          devices: [
            { id: "press-a", endpoint: "tcp://127.0.0.1:\(a)", unit: 1, pages: ["motion"] },
            { id: "press-b", endpoint: "tcp://127.0.0.1:\(b)", unit: 1, pages: ["motion"] },
          ],
          pages: [
            {
              id: "motion", title: "Motion",
              identity: [ { registerId: "model", address: 0, type: "string(8)" } ],
              registers: [
                { registerId: "motion.ramp", address: 300, type: "f32", scale: 1, unit: "K/min" },
                { registerId: "motion.counter", address: 310, type: "u64", max: \(bound) },
                { registerId: "motion.mode", address: 320, type: "u16" },
              ],
            },
          ],
        }
        """
    }

    /// The capture of a u64 one above its declared max is invalid, naming the exact bound; one at the max
    /// archives. Then `show` gives the f32 2.5 (`scale: 1`) as `2.5 K/min`.
    func testAU64IsCheckedAgainstItsBoundExactlyAndAFloatKeepsItsDigits() throws {
        let a = try pymodbusPeer([
            0: Self.model, 300: [0x4020, 0x0000], 310: Self.u64Words(Self.bound + 1), 320: [3],
        ])
        let b = try pymodbusPeer([0: Self.model])
        let daemon = try DaemonHarness(config: Self.config(a: a.port!, b: b.port!))

        let refused = try daemon.decode(
            JobInfo.self, try daemon.api("POST", "/v1/pages/motion/capture?wait=1", #"{"device":"press-a"}"#))
        let problems = try XCTUnwrap(refused.capture).problems
        XCTAssertEqual(problems.map(\.registerId), ["motion.counter"], "\(problems)")
        XCTAssertEqual(problems.first?.rule, "above max 9007199254740995")
        XCTAssertEqual(
            try daemon.decode([TemplateListing].self, try daemon.api("GET", "/v1/pages/motion/templates")).count, 0,
            "nothing archived")

        try Mbpoll.writeHolding(port: a.port!, unit: 1, address: 310, values: Self.u64Words(Self.bound))
        let capture = try daemon.cli(["capture", "motion", "--from", "press-a"])
        XCTAssertEqual(capture.status, 0, capture.stdout + capture.stderr)
        let show = try daemon.cli(["show", "motion"])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("2.5 K/min"), show.stdout)
        XCTAssertTrue(show.stdout.contains("9007199254740995"), show.stdout)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// A template file whose identity another tool wrote in lower-case hex: the apply to a machine of the same
    /// model used to be refused (`expected "PRS-200", target has "PRS-200"`); now it is written and verified.
    func testAnIdentityInLowerCaseHexMatchesTheSameModel() throws {
        let a = try pymodbusPeer([0: Self.model, 300: [0x4020, 0x0000], 310: Self.u64Words(7), 320: [3]])
        let b = try pymodbusPeer([0: Self.model])
        let daemon = try DaemonHarness(config: Self.config(a: a.port!, b: b.port!))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/motion/capture?wait=1", #"{"device":"press-a"}"#).status, 200)
        let exported = try daemon.api("GET", "/v1/pages/motion/templates/1/file")
        XCTAssertEqual(exported.status, 200)
        let upper = #""valueData":"5052532D32303000""#
        XCTAssertTrue(exported.text.contains(upper), exported.text)
        let lower = try resignedTemplateFile(exported.body, replacing: upper, with: #""valueData":"5052532d32303000""#)
        let imported = try daemon.api("POST", "/v1/pages/motion/templates", lower)
        XCTAssertEqual(imported.status, 201, imported.text)

        let apply = try daemon.cli(["apply", "motion", "--to", "press-b", "--version", "2"])
        XCTAssertEqual(apply.status, 0, apply.stdout + apply.stderr)
        XCTAssertTrue(apply.stdout.contains("verified"), apply.stdout)
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 300, count: 2), [0x4020, 0x0000])
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 310, count: 4), Self.u64Words(7))
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 320, count: 1), [3])
        XCTAssertEqual(daemon.stop(), 0)
    }
}
