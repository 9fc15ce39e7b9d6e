import Foundation
import Glibc
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// Conformance against real peers: the applied state, drift seen by polling after mbpoll changes a
/// register on the device, and the applied state across restarts (kept, and rebuilt from the audit log).
final class ConformanceEndToEndTests: XCTestCase {

    static func config(a: Int, b: Int, poll: String = "100ms") -> String {
        """
        { version: 1,
          devices: [
            { id: "press-a", endpoint: "tcp://127.0.0.1:\(a)", unit: 1, pages: ["heating"] },
            { id: "press-b", endpoint: "tcp://127.0.0.1:\(b)", unit: 1, pages: ["heating"], poll: "\(poll)" },
          ],
        \(DaemonEndToEndTests.pages)
        }
        """
    }

    /// Polls `GET /v1/conformance?page=heating` until `done` holds for press-b (10 s at most).
    private func waitConformance(
        _ daemon: DaemonHarness, _ what: String, _ done: (PageConformance) -> Bool
    ) throws -> PageConformance {
        let end = Date().addingTimeInterval(10)
        var last: PageConformance?
        while Date() < end {
            let list = try daemon.decode([PageConformance].self, try daemon.api("GET", "/v1/conformance?page=heating"))
            last = list.first { $0.device == "press-b" }
            if let last, done(last) { return last }
            usleep(20_000)
        }
        throw TestSupportError("press-b never became \(what); last: \(String(describing: last))")
    }

    private func count(_ text: String, in log: String) -> Int {
        log.split(separator: "\n").filter { $0.contains(text) }.count
    }

    func testDriftAppearsOnceClearsOnceAndTheAppliedStateSurvivesRestarts() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let b = try pymodbusPeer(DaemonEndToEndTests.blank)
        let daemon = try DaemonHarness(config: Self.config(a: a.port!, b: b.port!))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)
        let before = try daemon.decode([PageConformance].self, try daemon.api("GET", "/v1/conformance"))
        XCTAssertEqual(before.map(\.state), [.unknown, .unknown])
        XCTAssertEqual(
            before.map(\.reason), ["never applied (as far as this daemon knows)", "never applied (as far as this daemon knows)"])

        let apply = try daemon.cli(["apply", "heating", "--to", "press-b"])
        XCTAssertEqual(apply.status, 0, apply.stdout + apply.stderr)
        let conforming = try waitConformance(daemon, "conforming") { $0.state == .conforms }
        XCTAssertEqual(conforming.applied?.version, 1)
        XCTAssertEqual(conforming.applied?.appliedBy.hasPrefix("uid:\(getuid())"), true)

        // Someone changes the hysteresis (12 → 7) on the machine itself.
        try Mbpoll.writeHolding(port: b.port!, unit: 1, address: 120, values: [7])
        let drifted = try waitConformance(daemon, "drifted") { $0.state == .drifted }
        XCTAssertEqual(drifted.drifted.map(\.registerId), ["heating.hysteresis"])
        XCTAssertEqual(drifted.drifted.first?.expected, .unsigned(12))
        XCTAssertEqual(drifted.drifted.first?.live, .unsigned(7))
        let since = try XCTUnwrap(drifted.since)
        // Several more polls see the same drift: still one warning, same "since".
        let later = try waitConformance(daemon, "re-polled") { ($0.checkedAt ?? .distantPast) > since.addingTimeInterval(0.5) }
        XCTAssertEqual(later.state, .drifted)
        XCTAssertEqual(later.since, since)
        XCTAssertEqual(
            count(
                "drift on press-b page heating (applied v1): 1 register changed: heating.hysteresis expected 12 live 7",
                in: daemon.stderr), 1, daemon.stderr)
        XCTAssertEqual(count("warning lastsetd: drift on", in: daemon.stderr), 1, daemon.stderr)

        let table = try daemon.cli(["conformance", "heating"])
        XCTAssertEqual(table.status, 1, table.stdout + table.stderr)
        XCTAssertTrue(table.stdout.contains("press-b  heating  drifted"), table.stdout)
        XCTAssertTrue(table.stdout.contains("heating.hysteresis      120  12        7"), table.stdout)
        let devices = try daemon.cli(["devices"])
        XCTAssertTrue(devices.stdout.contains("heating v1 drifted"), devices.stdout)

        // Put back: conforms again, one clearing line.
        try Mbpoll.writeHolding(port: b.port!, unit: 1, address: 120, values: [12])
        let back = try waitConformance(daemon, "conforming again") { $0.state == .conforms }
        _ = try waitConformance(daemon, "re-polled") { ($0.checkedAt ?? .distantPast) > back.checkedAt!.addingTimeInterval(0.3) }
        XCTAssertEqual(count("drift on press-b page heating cleared", in: daemon.stderr), 1, daemon.stderr)
        XCTAssertEqual(count("warning lastsetd: drift on", in: daemon.stderr), 1, daemon.stderr)
        XCTAssertEqual(try daemon.cli(["conformance"]).status, 0)

        let rollout = try daemon.decode(Rollout.self, try daemon.api("GET", "/v1/pages/heating/rollout"))
        XCTAssertEqual(rollout.devices.map(\.standing), [.neverApplied, .latest])

        // Restart: the applied state is read back from the data directory.
        XCTAssertEqual(daemon.stop(), 0)
        try daemon.restart()
        let restarted = try waitConformance(daemon, "conforming after restart") { $0.state == .conforms }
        XCTAssertEqual(restarted.applied, conforming.applied)
        XCTAssertFalse(daemon.stderr.contains("rebuilt from the audit log"), daemon.stderr)

        // Lost state (the table emptied from outside): rebuilt from the audit log, same version, time and principal.
        XCTAssertEqual(daemon.stop(), 0)
        try SQLiteShell.write(daemon.dataDir.appendingPathComponent("lastset.db"), "DELETE FROM device_page_state")
        try daemon.restart()
        XCTAssertTrue(
            daemon.stderrContains("device state was missing: 1 device page rebuilt from the audit log"), daemon.stderr)
        let rebuilt = try waitConformance(daemon, "conforming after rebuild") { $0.state == .conforms }
        XCTAssertEqual(rebuilt.applied, conforming.applied)
        XCTAssertEqual(daemon.stop(), 0)
    }
}
