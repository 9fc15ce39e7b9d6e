import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// Scheduled backups and as-found history (issue 23 part 4, docs/AS-FOUND.md) through the real daemon against a
/// pymodbus press: a record per page only when something changed, each change credited to the Lastset job that
/// made it or to "nobody Lastset knows" (mbpoll's writes), never a template version, nothing ever written by a
/// backup (the press's write log), a failing device audited once per streak, and the history kept across a restart.
final class AsFoundEndToEndTests: XCTestCase {
    private static func config(port: Int, backup: String = "1s") -> String {
        """
        { version: 1,
          devices: [ { id: "press", endpoint: "tcp://127.0.0.1:\(port)", unit: 1, pages: ["heating"],
                       backup: "\(backup)", quirks: { timeout: "300ms", retries: 0 } } ],
          pages: [
            { id: "heating", identity: [ { registerId: "model", address: 0, type: "u16" } ],
              registers: [
                { registerId: "heating.mode", address: 100, type: "u16" },
                { registerId: "heating.setpoint", address: 101, type: "s16" },
              ] },
          ],
        }
        """
    }

    private func listing(_ daemon: DaemonHarness) throws -> AsFoundListing {
        try daemon.decode(AsFoundListing.self, try daemon.api("GET", "/v1/devices/press/as-found"))
    }

    private func record(_ daemon: DaemonHarness, _ number: Int) throws -> AsFoundRecord {
        try daemon.decode(AsFoundRecord.self, try daemon.api("GET", "/v1/devices/press/as-found/heating/\(number)"))
    }

    /// Waits for as-found record `number` of the press's page.
    private func waitForRecord(_ daemon: DaemonHarness, _ number: Int, timeout: TimeInterval = 15) -> Bool {
        eventually(timeout: timeout) { ((try? self.listing(daemon).records.first?.number) ?? 0) >= number }
    }

    func testChangesAreKeptAndCreditedAndABackupNeverWritesNorBecomesATemplate() throws {
        let press = try pymodbusPeer([0: [200], 100: [2], 101: [215]])
        let port = press.port!
        let daemon = try DaemonHarness(config: Self.config(port: port))

        // The first backup: every register as found.
        XCTAssertTrue(waitForRecord(daemon, 1), daemon.stderr)
        let first = try record(daemon, 1)
        XCTAssertEqual(first.values.map(\.valueData), ["0002", "00D7"])
        XCTAssertEqual(first.identity.map(\.valueData), ["00C8"])
        XCTAssertEqual(first.who, "policy:backup")
        XCTAssertEqual(first.changes, [])

        // Someone changes the setpoint at the machine (mbpoll): by nobody Lastset knows.
        try Mbpoll.writeHolding(port: port, unit: 1, address: 101, values: [230])
        XCTAssertTrue(waitForRecord(daemon, 2), daemon.stderr)
        let second = try record(daemon, 2)
        XCTAssertEqual(second.changes.map(\.registerId), ["heating.setpoint"])
        XCTAssertEqual(second.changes.first?.before?.valueData, "00D7")
        XCTAssertEqual(second.changes.first?.after?.valueData, "00E6")
        XCTAssertNil(second.changes.first?.by)
        var audit = try daemon.auditRecords().filter { $0.kind == .backup }
        XCTAssertEqual(
            audit.last?.message, "changed since the last backup: register heating.setpoint, by nobody Lastset knows",
            "\(audit)")
        XCTAssertEqual(audit.last?.registers.first?.message, "by nobody Lastset knows")

        // Lastset writes the captured value back after another local change: that change is credited to its job.
        XCTAssertEqual(try daemon.cli(["capture", "heating", "--from", "press"]).status, 0)
        try Mbpoll.writeHolding(port: port, unit: 1, address: 101, values: [100])
        XCTAssertTrue(waitForRecord(daemon, 3), daemon.stderr)
        let apply = try daemon.cli(["apply", "heating", "--to", "press"])
        XCTAssertEqual(apply.status, 0, apply.stdout + apply.stderr)
        XCTAssertEqual(try Mbpoll.readHolding(port: port, unit: 1, address: 100, count: 2), [2, 230])
        XCTAssertTrue(waitForRecord(daemon, 4), daemon.stderr)
        let fourth = try record(daemon, 4)
        let replay = try XCTUnwrap(try daemon.auditRecords().last { $0.kind == .replay && $0.result == .succeeded })
        XCTAssertEqual(fourth.changes.map(\.registerId), ["heating.setpoint"])
        XCTAssertEqual(fourth.changes.first?.by?.job, replay.job)
        XCTAssertEqual(fourth.changes.first?.by?.who, replay.who)
        audit = try daemon.auditRecords().filter { $0.kind == .backup }
        XCTAssertEqual(
            audit.last?.message, "changed since the last backup: register heating.setpoint by job \(replay.job!) (\(replay.who))")

        // Nothing changes: attempts go on, no record is added.
        let attempt = try XCTUnwrap(try listing(daemon).lastAttempt)
        XCTAssertTrue(eventually(timeout: 10) { ((try? self.listing(daemon).lastAttempt) ?? attempt) > attempt.addingTimeInterval(2) })
        XCTAssertEqual(try listing(daemon).records.map(\.number), [4, 3, 2, 1])

        // A backup is never a template version, and never writes: the press saw mbpoll's two writes and the apply's.
        let versions = try daemon.decode([TemplateListing].self, try daemon.api("GET", "/v1/pages/heating/templates"))
        XCTAssertEqual(versions.count, 1)
        let writes = try press.writes()
        XCTAssertEqual(writes.count, 3, "\(writes)")
        XCTAssertTrue(writes.allSatisfy { $0.address == 100 || $0.address == 101 })

        // The CLI shows the history and one record.
        let list = try daemon.cli(["as-found", "press"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(list.stdout.contains("every 1s") && list.stdout.contains("by nobody Lastset knows"), list.stdout)
        let shown = try daemon.cli(["as-found", "press", "heating", "2"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertTrue(shown.stdout.contains("nobody Lastset knows") && shown.stdout.contains("00E6"), shown.stdout)
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testAFailingDeviceIsRecordedOncePerStreakAndTheHistoryOutlivesARestart() throws {
        var press = try pymodbusPeer([0: [200], 100: [2], 101: [215]])
        let port = press.port!
        let daemon = try DaemonHarness(config: Self.config(port: port))
        XCTAssertTrue(waitForRecord(daemon, 1), daemon.stderr)

        // The press goes away for several attempts: one failed record, one warning.
        press.stop()
        XCTAssertTrue(daemon.stderrContains("scheduled backup of press failed"), daemon.stderr)
        let failedAt = try XCTUnwrap(try listing(daemon).lastAttempt)
        XCTAssertTrue(eventually(timeout: 15) { ((try? self.listing(daemon).lastAttempt) ?? failedAt) > failedAt.addingTimeInterval(2) })
        XCTAssertNotNil(try listing(daemon).failure)
        let failures = try daemon.auditRecords().filter { $0.kind == .backup && $0.result == .failed }
        XCTAssertEqual(failures.count, 1, "\(failures)")
        XCTAssertTrue(failures.first?.message?.contains("recorded once until a backup of press succeeds again") ?? false)

        // It comes back changed: the streak ends, and the change is recorded.
        press = try stopAtEnd(PymodbusPeer.startTCP(port: port, values: [0: [200], 100: [3], 101: [215]]))
        XCTAssertTrue(daemon.stderrContains("scheduled backup of press succeeds again"), daemon.stderr)
        XCTAssertTrue(waitForRecord(daemon, 2), daemon.stderr)
        XCTAssertNil(try listing(daemon).failure)

        // After a restart the numbering and the comparison go on from the records kept.
        XCTAssertEqual(daemon.stop(), 0)
        try daemon.restart()
        try Mbpoll.writeHolding(port: port, unit: 1, address: 100, values: [4])
        XCTAssertTrue(waitForRecord(daemon, 3), daemon.stderr)
        XCTAssertEqual(try record(daemon, 3).changes.first?.before?.valueData, "0003")
        XCTAssertEqual(try press.writes().count, 1, "only mbpoll's write")

        // --now: a backup job at once, nothing changed.
        let now = try daemon.cli(["as-found", "press", "--now"])
        XCTAssertEqual(now.status, 0, now.stdout + now.stderr)
        XCTAssertTrue(now.stdout.contains("heating: unchanged since record 3"), now.stdout)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// The seeded randomized backup trials (`make backup-trials` runs 300 steps; Tests/chaos/backuptrials.py) in small:
    /// 40 steps of seed 4646, every record and every change's credit checked from the press's frame log and mbpoll.
    func testFortySeededRandomizedBackupSteps() throws {
        let run = try ProgramRun.run(
            TestPaths.repoRoot.appendingPathComponent("Tests/chaos/backuptrials.py"),
            ["--bin", TestPaths.productsDirectory.path, "--steps", "40", "--seed", "4646"], mergingStderr: true,
            timeout: 300)
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertTrue(run.stdout.contains("40 steps") && run.stdout.contains("0 violations"), run.stdout)
    }
}
