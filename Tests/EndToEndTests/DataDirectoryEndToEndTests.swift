import Foundation
import Glibc
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// The data directory as the daemon sees it under disk faults and planted links.
final class DataDirectoryEndToEndTests: XCTestCase {

    private func config(port: Int) -> String {
        """
        { version: 1,
          devices: [ { id: "press-a", endpoint: "tcp://127.0.0.1:\(port)", unit: 1, pages: ["heating"] } ],
        \(DaemonEndToEndTests.pages)
        }
        """
    }

    private var hysteresis: UInt16 = 20
    /// The port of the device `capture` changes first (the last peer started).
    private var devicePort: Int?

    /// Captures after giving the device's hysteresis a fresh value (an identical capture makes no new version).
    private func capture(_ daemon: DaemonHarness) throws -> CaptureReport {
        if let port = devicePort {
            try Mbpoll.writeHolding(port: port, unit: 1, address: 120, values: [hysteresis])
            hysteresis += 1
        }
        let r = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#)
        return try XCTUnwrap(try daemon.decode(JobInfo.self, r).capture, r.text)
    }

    private func latestVersion(_ daemon: DaemonHarness) throws -> Int? {
        let r = try daemon.api("GET", "/v1/pages/heating/templates/latest")
        return r.status == 200 ? try daemon.decode(Template.self, r).version : nil
    }

    /// EIO on the fsync of a capture's commit (the WAL's): the version and its record are one commit, so the
    /// capture answers "nothing archived" naming the database and the errno, the latest stays what it was, and
    /// the version does not come back after a restart (SQLite would replay the failed commit's frames without
    /// the writer's overwrite). The next capture takes the number the failed one would have had. (On the file
    /// store the same fault, on the directory fsync after the rename, left the version in place and served,
    /// durability unconfirmed.)
    func testAFailedFsyncOfACapturesCommitArchivesNothingAndSaysSo() throws {
        let p = try pymodbusPeer(DaemonEndToEndTests.reference)
        devicePort = p.port
        let work = try TestPaths.temporaryDirectory(prefix: "fault")
        defer { try? FileManager.default.removeItem(at: work) }
        let library = try buildFaultLibrary(walFsyncFaultSource, in: work)
        let log = work.appendingPathComponent("fsync.log")
        let flag = work.appendingPathComponent("fail-now")
        let daemon = try DaemonHarness(
            config: config(port: p.port!),
            environment: ["LD_PRELOAD": library, "LASTSET_FAULT_LOG": log.path, "LASTSET_FAULT_WAL_FSYNC_EIO": flag.path])
        let data = daemon.dataDir.resolvingSymlinksInPath().path

        let first = try capture(daemon)
        XCTAssertTrue(first.archived, "\(first)")
        XCTAssertNil(first.error)
        // The new database's directory entry is durable only once the data directory is fsynced.
        let synced = Set(try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init))
        XCTAssertTrue(synced.contains(data), "\(data) never fsynced; fsynced: \(synced.sorted())")

        FileManager.default.createFile(atPath: flag.path, contents: nil)
        let second = try capture(daemon)
        XCTAssertFalse(second.archived, "\(second)")
        let error = try XCTUnwrap(second.error)
        XCTAssertTrue(error.contains("nothing archived"), error)
        XCTAssertTrue(error.contains("lastset.db") && error.contains("errno 5"), error)
        XCTAssertEqual(try latestVersion(daemon), 1, "the previous version stays the latest")

        try FileManager.default.removeItem(at: flag)
        let third = try capture(daemon)
        XCTAssertTrue(third.archived, "\(third)")
        XCTAssertEqual(third.version, 2, "the failed capture's number was never taken")
        XCTAssertNil(third.error)
        XCTAssertEqual(daemon.stop(), 0)
        try daemon.restart()
        let listing = try daemon.decode([TemplateListing].self, try daemon.api("GET", "/v1/pages/heating/templates"))
        XCTAssertEqual(listing.map(\.version), [2, 1])
        let records = try daemon.auditRecords().filter { $0.kind == .capture }
        XCTAssertEqual(records.map(\.result), [.archived, .archived], "the failed commit held the capture and its record")
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// EIO on the fsync of a replay's intent commit (the audit intent and the journal's intent, one commit): the
    /// replay is refused before its first frame — the machine logs no write, its registers are as they were
    /// (mbpoll) — its answer names the database and the errno, and after a restart there is neither a record nor
    /// a journal of it (no "interrupted" replay that never wrote). Once the disk heals the same replay writes,
    /// one intent and one outcome.
    func testAReplayWhoseIntentCannotBeCommittedWritesNoFrame() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let b = try pymodbusPeer(DaemonEndToEndTests.blank)
        devicePort = b.port
        let work = try TestPaths.temporaryDirectory(prefix: "fault")
        defer { try? FileManager.default.removeItem(at: work) }
        let library = try buildFaultLibrary(walFsyncFaultSource, in: work)
        let flag = work.appendingPathComponent("fail-now")
        let daemon = try DaemonHarness(
            config: """
                { version: 1,
                  devices: [
                    { id: "press-a", endpoint: "tcp://127.0.0.1:\(a.port!)", unit: 1, pages: ["heating"] },
                    { id: "press-b", endpoint: "tcp://127.0.0.1:\(b.port!)", unit: 1, pages: ["heating"] },
                  ],
                \(DaemonEndToEndTests.pages)
                }
                """,
            environment: ["LD_PRELOAD": library, "LASTSET_FAULT_WAL_FSYNC_EIO": flag.path])
        let captured = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#)
        XCTAssertEqual(try daemon.decode(JobInfo.self, captured).capture?.archived, true, captured.text)
        let before = try Mbpoll.readHolding(port: b.port!, unit: 1, address: 100, count: 30)

        FileManager.default.createFile(atPath: flag.path, contents: nil)
        let refused = try daemon.api("POST", "/v1/pages/heating/apply?wait=1", #"{"device":"press-b"}"#)
        let report = try XCTUnwrap(try daemon.decode(JobInfo.self, refused).replay, refused.text)
        XCTAssertEqual(report.status, .refused, refused.text)
        XCTAssertEqual(report.writeFrames, 0)
        let reason = report.reason ?? ""
        XCTAssertTrue(reason.contains("nothing written") && reason.contains("lastset.db") && reason.contains("errno 5"), reason)
        XCTAssertEqual(try b.writes(), [], "a frame went out without its intent committed")
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 100, count: 30), before)

        try FileManager.default.removeItem(at: flag)
        XCTAssertEqual(daemon.stop(), 0)
        try daemon.restart()
        let db = daemon.dataDir.appendingPathComponent("lastset.db")
        XCTAssertEqual(try SQLiteShell.query(db, "SELECT count(*) FROM replay_journal"), ["0"])
        XCTAssertEqual(try daemon.rawAuditRecords().filter { $0.kind == .replay }.map(\.result), [])
        XCTAssertFalse(daemon.stderr.contains("interrupted"), daemon.stderr)

        let applied = try daemon.api("POST", "/v1/pages/heating/apply?wait=1", #"{"device":"press-b"}"#)
        XCTAssertEqual(try daemon.decode(JobInfo.self, applied).replay?.status, .succeeded, applied.text)
        XCTAssertFalse(try b.writes().isEmpty)
        XCTAssertEqual(try daemon.rawAuditRecords().filter { $0.kind == .replay }.map(\.result), [.started, .succeeded])
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// A data directory registered with a fleet whose host file was damaged: the daemon refuses to start naming
    /// the file (read as "never registered", it would have started under the configured name, and a plain
    /// version number would have changed meaning).
    func testADamagedFleetHostFileRefusesTheStart() throws {
        let work = try TestPaths.temporaryDirectory(prefix: "hostfile")
        defer { try? FileManager.default.removeItem(at: work) }
        let configURL = work.appendingPathComponent("lastset.json")
        let withFleet = config(port: 1).replacingOccurrences(
            of: "{ version: 1,",
            with: "{ version: 1,\n  fleet: { remote: \"file://\(work.path)/hub.git\", interval: \"0s\", host: \"line-b\" },")
        try withFleet.write(to: configURL, atomically: true, encoding: .utf8)
        let data = work.appendingPathComponent("data")
        let git = data.appendingPathComponent("fleet/.git")
        try FileManager.default.createDirectory(at: git, withIntermediateDirectories: true)
        try Data("line a\n".utf8).write(to: git.appendingPathComponent("lastset-host"))
        let run = try DaemonHarness.runToExit([
            "--config", configURL.path, "--data-dir", data.path, "--socket", work.path + "/s",
        ])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(
            run.stderr.contains("refusing to start") && run.stderr.contains("fleet/.git/lastset-host")
                && run.stderr.contains("not a valid host name"), run.stderr)
    }

    /// Rows of `lastset.db` a store cannot read (a device's recognition record, a change request) are left out of what
    /// the daemon holds and said in its log at the start, each by its key, never dropped in silence; the daemon runs.
    func testUnreadableRowsAreNamedInTheLogAtTheStart() throws {
        let daemon = try DaemonHarness(config: config(port: 1))
        XCTAssertEqual(daemon.stop(), 0)
        let database = daemon.dataDir.appendingPathComponent("lastset.db").path
        let plant = try ProgramRun.run(
            URL(fileURLWithPath: "/usr/bin/sqlite3"),
            [
                database,
                "INSERT INTO device_recognition (device, record) VALUES ('press', 'not json');"
                    + "INSERT INTO change_request (id, filed_at, claimed, record) VALUES ('c-7', 0, 0, '{\"id\": 7}');",
            ], mergingStderr: true, timeout: 30)
        XCTAssertEqual(plant.status, 0, plant.stdout)
        try daemon.restart()
        XCTAssertTrue(
            daemon.stderrContains("the recognition record of device press in lastset.db cannot be read"), daemon.stderr)
        XCTAssertTrue(
            daemon.stderrContains("change request c-7 in lastset.db cannot be read: it can be neither listed, signed nor applied"),
            daemon.stderr)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// `lastset.db` planted as a symlink to a file outside: the daemon refuses to start naming it, and the file it
    /// points to is left as it was. A link planted among the version files of the release before the database is
    /// not followed by the import: not imported, named in the log, moved aside as the link it is.
    func testPlantedSymlinksAreNeverFollowed() throws {
        let p = try pymodbusPeer(DaemonEndToEndTests.reference)
        devicePort = p.port
        let work = try TestPaths.temporaryDirectory(prefix: "links")
        defer { try? FileManager.default.removeItem(at: work) }
        let configURL = work.appendingPathComponent("lastset.json")
        try config(port: p.port!).write(to: configURL, atomically: true, encoding: .utf8)
        let data = work.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let outside = work.appendingPathComponent("outside.db")
        try Data("precious\n".utf8).write(to: outside)
        XCTAssertEqual(symlink(outside.path, data.appendingPathComponent("lastset.db").path), 0)
        let run = try DaemonHarness.runToExit([
            "--config", configURL.path, "--data-dir", data.path, "--socket", work.path + "/s",
        ])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("refusing to start") && run.stderr.contains("lastset.db"), run.stderr)
        XCTAssertEqual(try String(contentsOf: outside, encoding: .utf8), "precious\n")

        // The release's files with a version linked in from outside.
        try FileManager.default.removeItem(at: data.appendingPathComponent("lastset.db"))
        let fixture = try TestPaths.repoRoot.appendingPathComponent("Tests/Fixtures/pre-sqlite/data/templates/heating")
        let pageDir = data.appendingPathComponent("templates/heating")
        try FileManager.default.createDirectory(at: pageDir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: fixture.appendingPathComponent("v000001.json"), to: pageDir.appendingPathComponent("v000001.json"))
        let foreign = work.appendingPathComponent("v000002.json")
        try FileManager.default.copyItem(at: fixture.appendingPathComponent("v000002.json"), to: foreign)
        XCTAssertEqual(symlink(foreign.path, pageDir.appendingPathComponent("v000002.json").path), 0)
        let daemon = try DaemonHarness(config: config(port: p.port!), dataDirectory: data)
        XCTAssertTrue(
            daemon.stderrContains("templates/heating/v000002.json (cannot") && daemon.stderr.contains("symbolic link"),
            daemon.stderr)
        let listing = try daemon.decode([TemplateListing].self, try daemon.api("GET", "/v1/pages/heating/templates"))
        XCTAssertEqual(listing.map(\.version), [1], "the link was not imported")
        var st = stat()
        XCTAssertEqual(lstat(data.appendingPathComponent("pre-sqlite/templates/heating/v000002.json").path, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFLNK, "moved aside as the link it is")
        XCTAssertEqual(daemon.stop(), 0)
    }
}
