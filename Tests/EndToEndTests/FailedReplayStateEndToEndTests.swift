import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// What a failed replay leaves recorded for its device page (issue 19, defect 9), through the real daemon
/// against lastset-sim devices and checked with mbpoll. v1 replayed half-way onto a machine that held v2 (a
/// clamped register in the second verification window, `onError: stop`) used to leave rollout and devices
/// saying v2 — on an unpolled device for good — while the machine held v1's first window, the clamp and
/// v2's rest. Such a page is now marked partially written (the "may be partially written" mark, with a
/// reason that says the replay failed), holds no version, and the rebuild from the audit log agrees; a failed
/// replay that changed nothing, or whose rollback restored everything, leaves the previous version.
final class FailedReplayStateEndToEndTests: XCTestCase {
    private var sims: [SimulatorProcess] = []
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory(prefix: "failed-replay")
    }

    override func tearDown() {
        for s in sims { s.stop() }
        sims = []
        try? FileManager.default.removeItem(at: dir)
    }

    /// Two verification windows: 100–101, and 120–121 (the gap is wider than `maxGap`, so one read each).
    private static func config(a: Int, b: Int) -> String {
        """
        { version: 1,
          devices: [
            { id: "press-a", endpoint: "tcp://127.0.0.1:\(a)", unit: 1, pages: ["heating"] },
            { id: "press-b", endpoint: "tcp://127.0.0.1:\(b)", unit: 1, pages: ["heating"] },
          ],
          pages: [
            {
              id: "heating", title: "Heating",
              registers: [
                { registerId: "heating.mode", address: 100, type: "u16" },
                { registerId: "heating.setpoint", address: 101, type: "s16" },
                { registerId: "heating.limit", address: 120, type: "u16" },
                { registerId: "heating.delay", address: 121, type: "u16" },
              ],
            },
          ],
        }
        """
    }

    /// v1's words at 100, 101, 120, 121, and v2's. press-b clamps 120 to 100: v2's 50 passes, v1's 500 does not.
    private static let v1: (window1: [UInt16], window2: [UInt16]) = ([1, 0xFFF6], [500, 11])
    private static let v2: (window1: [UInt16], window2: [UInt16]) = ([2, 0xFFEC], [50, 22])

    private var simConfig: URL { dir.appendingPathComponent("sim.json") }

    private func startSim(_ device: String, port: Int, values: String?, flags: [String] = []) throws -> SimulatorProcess {
        var args = ["--config", simConfig.path, "--device", device, "--tcp", "127.0.0.1:\(port)", "--log-writes"]
        if let values {
            let file = dir.appendingPathComponent("\(device)-\(UUID().uuidString).json")
            try values.write(to: file, atomically: true, encoding: .utf8)
            args += ["--values", file.path]
        }
        let sim = try SimulatorProcess.start(args + flags)
        sims.append(sim)
        return sim
    }

    private func job(_ daemon: DaemonHarness, _ body: String) throws -> ReplayReport {
        let r = try daemon.api("POST", "/v1/pages/heating/apply?wait=1", body)
        XCTAssertEqual(r.status, 200, r.text)
        return try XCTUnwrap(try daemon.decode(JobInfo.self, r).replay, r.text)
    }

    private func object(_ r: HTTPClientResponse) throws -> Any {
        XCTAssertEqual(r.status, 200, r.text)
        return try JSONSerialization.jsonObject(with: Data(r.body))
    }

    /// press-b's line of the rollout: its standing and applied version, and the counts.
    private func rollout(_ daemon: DaemonHarness) throws -> (standing: String?, applied: String?, counts: [String: Int]) {
        let body = try XCTUnwrap(try object(daemon.api("GET", "/v1/pages/heating/rollout")) as? [String: Any])
        let devices = try XCTUnwrap(body["devices"] as? [[String: Any]])
        let b = try XCTUnwrap(devices.first { $0["device"] as? String == "press-b" })
        return (b["standing"] as? String, b["appliedVersion"] as? String, body["counts"] as? [String: Int] ?? [:])
    }

    /// press-b in `GET /v1/devices`: the version recorded for heating, and its mark's reason (nil: none).
    private func device(_ daemon: DaemonHarness) throws -> (applied: String?, mark: String?, message: String?) {
        let list = try XCTUnwrap(try object(daemon.api("GET", "/v1/devices")) as? [[String: Any]])
        let b = try XCTUnwrap(list.first { $0["id"] as? String == "press-b" })
        let applied = (b["applied"] as? [String: Any])?["heating"] as? [String: Any]
        let mark = (b["unverified"] as? [[String: Any]])?.first { $0["pageId"] as? String == "heating" }
        return (
            applied?["versionId"] as? String, mark.map { $0["reason"] as? String ?? "interrupted" }, mark?["message"] as? String
        )
    }

    func testAFailedReplayThatWroteRegistersLeavesThePagePartiallyWrittenHoldingNoVersion() throws {
        try Self.config(a: 9, b: 9).write(to: simConfig, atomically: true, encoding: .utf8)
        let a = try startSim(
            "press-a", port: 0,
            values: #"{"heating.mode": 1, "heating.setpoint": -10, "heating.limit": 500, "heating.delay": 11}"#)
        let portB = try TestPorts.freeLoopbackPort()
        var b = try startSim("press-b", port: portB, values: nil, flags: ["--clamp", "120:100"])
        let daemon = try DaemonHarness(config: Self.config(a: a.port!, b: portB))

        // v1 from press-a, then v2 (press-a changed through mbpoll).
        for _ in 1...2 {
            let r = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#)
            XCTAssertEqual(try daemon.decode(JobInfo.self, r).capture?.archived, true, r.text)
            try Mbpoll.writeHolding(port: a.port!, unit: 1, address: 100, values: Self.v2.window1)
            try Mbpoll.writeHolding(port: a.port!, unit: 1, address: 120, values: Self.v2.window2)
        }
        XCTAssertEqual(try job(daemon, #"{"device":"press-b"}"#).status, .succeeded)
        XCTAssertEqual(try rollout(daemon).standing, "latest")
        XCTAssertEqual(try rollout(daemon).applied, "2")
        XCTAssertEqual(try device(daemon).applied, "2")

        // v1 with rollback: window 1 written, the clamp found in window 2, everything restored: still v2.
        let restored = try job(daemon, #"{"device":"press-b","version":1,"onError":"rollback"}"#)
        XCTAssertEqual(restored.status, .failed)
        XCTAssertEqual(restored.rollback?.restored, true, restored.reason ?? "")
        XCTAssertEqual(try Mbpoll.readHolding(port: portB, unit: 1, address: 100, count: 2), Self.v2.window1)
        XCTAssertEqual(try Mbpoll.readHolding(port: portB, unit: 1, address: 120, count: 2), Self.v2.window2)
        XCTAssertEqual(try rollout(daemon).standing, "latest", "a rollback that restored everything leaves v2")
        XCTAssertEqual(try device(daemon).applied, "2")
        XCTAssertNil(try device(daemon).mark)

        // v1 without rollback: the machine now holds v1's first window, the clamp, and v1's delay — no version.
        let partial = try job(daemon, #"{"device":"press-b","version":1}"#)
        XCTAssertEqual(partial.status, .failed)
        XCTAssertNil(partial.rollback)
        XCTAssertEqual(try Mbpoll.readHolding(port: portB, unit: 1, address: 100, count: 2), Self.v1.window1)
        XCTAssertEqual(try Mbpoll.readHolding(port: portB, unit: 1, address: 120, count: 2), [100, 11])
        func checkPartiallyWritten(_ when: String) throws {
            let r = try rollout(daemon)
            XCTAssertEqual(r.standing, "partiallyWritten", when)
            XCTAssertNil(r.applied, "\(when): a partially written page holds no version")
            XCTAssertEqual(r.counts["partiallyWritten"], 1, "\(when): \(r.counts)")
            XCTAssertEqual(r.counts["latest"], 0, "\(when): \(r.counts)")
            let d = try device(daemon)
            XCTAssertNil(d.applied, "\(when): devices must not say v\(d.applied ?? "")")
            XCTAssertEqual(d.mark, "failed", when)
            XCTAssertTrue(
                d.message?.contains("failed: partially written by version 1") ?? false, "\(when): \(d.message ?? "nil")")
            let cli = try daemon.cli(["rollout", "heating"])
            XCTAssertTrue(
                cli.stdout.contains("press-b  partially-written"), "\(when): status \(cli.status)\n\(cli.stdout)\(cli.stderr)")
            XCTAssertTrue(cli.stdout.contains("1 partially written"), "\(when): status \(cli.status)\n\(cli.stdout)\(cli.stderr)")
            let devices = try daemon.cli(["devices"])
            XCTAssertTrue(devices.stdout.contains("heating partially written"), "\(when):\n\(devices.stdout)\(devices.stderr)")
        }
        try checkPartiallyWritten("after the failed replay")

        // The state rebuilt from the audit log says the same.
        XCTAssertEqual(daemon.stop(), 0)
        try SQLiteShell.write(daemon.dataDir.appendingPathComponent("lastset.db"), "DELETE FROM device_page_state")
        try daemon.restart()
        try checkPartiallyWritten("after a rebuild from the audit log")

        // A dry run that read every entry clears the mark, as for an interrupted replay; no version is recorded.
        let diff = try job(daemon, #"{"device":"press-b","dryRun":true}"#)
        XCTAssertEqual(diff.status, .planned)
        XCTAssertNil(try device(daemon).mark)
        XCTAssertNil(try device(daemon).applied)
        XCTAssertEqual(try rollout(daemon).standing, "neverApplied")

        // v2 again, then v1 to a press-b that refuses every write of window 1: nothing changed, v2 stays.
        XCTAssertEqual(try job(daemon, #"{"device":"press-b"}"#).status, .succeeded)
        XCTAssertEqual(try rollout(daemon).standing, "latest")
        b.stop()
        sims.removeAll { $0 === b }
        b = try startSim(
            "press-b", port: portB,
            values: #"{"heating.mode": 2, "heating.setpoint": -20, "heating.limit": 50, "heating.delay": 22}"#,
            flags: ["--exception", "100:4", "--exception", "101:4"])
        let rejected = try job(daemon, #"{"device":"press-b","version":1}"#)
        XCTAssertEqual(rejected.status, .failed)
        XCTAssertEqual(rejected.registers.map(\.status), [.rejected, .rejected, .notAttempted, .notAttempted])
        XCTAssertFalse(b.writeLines.isEmpty, "the write frame went out")
        XCTAssertTrue(b.writeLines.allSatisfy { $0.contains("exception=") }, "no write acknowledged: \(b.writeLines)")
        XCTAssertEqual(try rollout(daemon).standing, "latest", "a replay that changed nothing leaves v2")
        XCTAssertEqual(try device(daemon).applied, "2")
        XCTAssertNil(try device(daemon).mark)
        XCTAssertEqual(daemon.stop(), 0)
    }
}
