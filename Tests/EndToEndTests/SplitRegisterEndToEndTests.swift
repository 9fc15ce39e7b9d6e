import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// A register longer than both the device's write and read limits (found by the chaos run, seed 5): a
/// `string(8)` (4 registers) to a device declaring `maxWriteRegisters: 3` and `maxReadRegisters: 3` is
/// written as 110+3 then 113+1 and read back as 110+3 then 113+1. The verification window closed after the
/// first part (the next write no longer touched the first read), so the register's reads were never all
/// sent after its last write: it stayed "acknowledged, not read back", the replay failed with every word on
/// the machine right, and the commit step (afterWrite) was never sent — every replay of the page to such a
/// device failed, leaving it unlocked. A window now stays open until every part of a register it wrote is
/// written. Checked through the real daemon against lastset-sim, from its write log and with mbpoll.
final class SplitRegisterEndToEndTests: XCTestCase {
    private var sims: [SimulatorProcess] = []
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory(prefix: "split-register")
    }

    override func tearDown() {
        for s in sims { s.stop() }
        sims = []
        try? FileManager.default.removeItem(at: dir)
    }

    private static func config(a: Int, b: Int, maxWrite: Int, maxRead: Int) -> String {
        """
        { version: 1,
          devices: [
            { id: "press-a", endpoint: "tcp://127.0.0.1:\(a)", unit: 1, pages: ["heating"] },
            { id: "press-b", endpoint: "tcp://127.0.0.1:\(b)", unit: 1, pages: ["heating"],
              quirks: { maxWriteRegisters: \(maxWrite), maxReadRegisters: \(maxRead) } },
          ],
          pages: [
            {
              id: "heating", title: "Heating",
              beforeWrite: [{ address: 1536, value: 6868 }], afterWrite: [{ address: 2304, value: 0 }],
              registers: [
                { registerId: "heating.mode", address: 100, type: "u16" },
                { registerId: "heating.label", address: 110, type: "string(8)" },
              ],
            },
          ],
        }
        """
    }

    private func startSim(_ config: URL, _ device: String, values: String?) throws -> SimulatorProcess {
        var args = ["--config", config.path, "--device", device, "--tcp", "127.0.0.1:0", "--log-writes"]
        if let values {
            let file = dir.appendingPathComponent("\(device).json")
            try values.write(to: file, atomically: true, encoding: .utf8)
            args += ["--values", file.path]
        }
        let sim = try SimulatorProcess.start(args)
        sims.append(sim)
        return sim
    }

    /// Captures press-a, applies to press-b with the given limits; checks press-b's own log and contents.
    private func applySplit(maxWrite: Int, maxRead: Int, writes expected: [String]) throws {
        let simConfig = dir.appendingPathComponent("sim-\(maxWrite)-\(maxRead).json")
        try Self.config(a: 9, b: 9, maxWrite: maxWrite, maxRead: maxRead).write(
            to: simConfig, atomically: true, encoding: .utf8)
        let a = try startSim(simConfig, "press-a", values: #"{"heating.mode": 2, "heating.label": "Line 22"}"#)
        let b = try startSim(simConfig, "press-b", values: nil)
        let daemon = try DaemonHarness(config: Self.config(a: a.port!, b: b.port!, maxWrite: maxWrite, maxRead: maxRead))

        let c = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#)
        XCTAssertEqual(try daemon.decode(JobInfo.self, c).capture?.archived, true, c.text)
        let r = try daemon.api("POST", "/v1/pages/heating/apply?wait=1", #"{"device":"press-b"}"#)
        XCTAssertEqual(r.status, 200, r.text)
        let report = try XCTUnwrap(try daemon.decode(JobInfo.self, r).replay, r.text)

        // The device's side: the label in the planned parts, then the commit.
        XCTAssertEqual(b.writeLines, expected, "maxWrite \(maxWrite) maxRead \(maxRead)")
        XCTAssertEqual(
            try Mbpoll.readHolding(port: b.port!, unit: 1, address: 110, count: 4), [0x4C69, 0x6E65, 0x2032, 0x3200])
        XCTAssertEqual(report.status, .succeeded, "\(report.reason ?? "") \(report.registers.map { "\($0.registerId) \($0.status) \($0.message ?? "")" })")
        XCTAssertEqual(report.registers.map(\.status), [.verified, .verified])
    }

    func testARegisterLongerThanTheWriteAndReadLimitsIsVerifiedAndCommitted() throws {
        // Writes 110+3, 113+1; reads 110+3, 113+1.
        try applySplit(
            maxWrite: 3, maxRead: 3,
            writes: [
                "WRITE fc=6 unit=1 address=1536 count=1 values=6868",
                "WRITE fc=6 unit=1 address=100 count=1 values=2",
                "WRITE fc=16 unit=1 address=110 count=3 values=19561,28261,8242",
                "WRITE fc=16 unit=1 address=113 count=1 values=12800",
                "WRITE fc=6 unit=1 address=2304 count=1 values=0",
            ])
    }

    func testARegisterWrittenAndReadAtOtherBoundariesIsVerifiedAndCommitted() throws {
        // Writes 110+3, 113+1; reads 110+2, 112+2.
        try applySplit(
            maxWrite: 3, maxRead: 2,
            writes: [
                "WRITE fc=6 unit=1 address=1536 count=1 values=6868",
                "WRITE fc=6 unit=1 address=100 count=1 values=2",
                "WRITE fc=16 unit=1 address=110 count=3 values=19561,28261,8242",
                "WRITE fc=16 unit=1 address=113 count=1 values=12800",
                "WRITE fc=6 unit=1 address=2304 count=1 values=0",
            ])
    }
}
