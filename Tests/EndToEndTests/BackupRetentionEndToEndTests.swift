import Foundation
import Glibc
import LastsetClient
import LastsetCore
import TestSupport
import XCTest
import LastsetFormats

/// An LD_PRELOAD library that SIGKILLs the process right after a `renameat` that puts an audit archive file
/// (`…/audit-<first>-<last>.jsonl`) in place, while the file $LASTSET_FAULT_KILL_AFTER_ARCHIVE exists: a daemon
/// killed between the export of audit records and the commit that removes them.
let killAfterArchiveSource = #"""
    #define _GNU_SOURCE
    #include <dlfcn.h>
    #include <signal.h>
    #include <stdlib.h>
    #include <string.h>
    #include <unistd.h>

    int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
        static int (*real)(int, const char *, int, const char *);
        if (!real) real = (int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");
        int rc = real(olddirfd, oldpath, newdirfd, newpath);
        const char *flag = getenv("LASTSET_FAULT_KILL_AFTER_ARCHIVE");
        size_t n = strlen(newpath);
        if (rc == 0 && flag && access(flag, F_OK) == 0 && strncmp(newpath, "audit-", 6) == 0 && n > 6
            && strcmp(newpath + n - 6, ".jsonl") == 0) {
            fsync(newdirfd);
            kill(getpid(), SIGKILL);
        }
        return rc;
    }
    """#

/// `lastset backup` and audit retention against the real daemon (issue 20): a consistent copy while imports
/// commit, that opens as a lastset database (and serves, restored); the backup's refusals; records past the bound
/// exported to `audit-archive/` byte for byte as `lastset audit --json` shows them, then removed; a kill between the
/// export and the removal losing and duplicating nothing.
final class BackupRetentionEndToEndTests: XCTestCase {
    private var work: URL!

    override func setUp() async throws {
        work = try TestPaths.temporaryDirectory(prefix: "backup-e2e")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: work)
    }

    private func config(port: Int, audit: String = "") -> String {
        """
        { version: 1, \(audit)
          devices: [ { id: "press-a", endpoint: "tcp://127.0.0.1:\(port)", unit: 1, pages: ["heating"] } ],
        \(DaemonEndToEndTests.pages)
        }
        """
    }

    /// A daemon with one capture of heating; returns it and the template file.
    private func daemonWithATemplate(audit: String = "", environment: [String: String] = [:]) throws -> (DaemonHarness, [UInt8]) {
        let p = try pymodbusPeer(DaemonEndToEndTests.reference)
        let daemon = try DaemonHarness(config: config(port: p.port!, audit: audit), environment: environment)
        let captured = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#)
        XCTAssertEqual(captured.status, 200, captured.text)
        let file = try daemon.api("GET", "/v1/pages/heating/templates/1/file")
        XCTAssertEqual(file.status, 200, file.text)
        return (daemon, file.body)
    }

    private func database(_ daemon: DaemonHarness) -> URL { daemon.dataDir.appendingPathComponent("lastset.db") }

    func testABackupWhileImportsCommitHoldsEveryAcknowledgedRecordAndRestoresAsADatabase() throws {
        let (daemon, file) = try daemonWithATemplate()
        defer { _ = daemon.stop() }
        let acknowledged = LockedVersions()
        let stop = LockedVersions()
        let group = DispatchGroup()
        for _ in 0..<32 {
            DispatchQueue.global().async(group: group) {
                while !stop.contains(0) {
                    guard let r = try? daemon.client.send(method: "POST", path: "/v1/pages/heating/templates", body: file),
                        r.status == 201, let t = try? daemon.decode(Template.self, r)
                    else {
                        stop.insert(-1)
                        return
                    }
                    acknowledged.insert(t.version)
                }
            }
        }
        // Every writer has been answered at least once: the imports are committing when the backup begins.
        while acknowledged.count < 64 && !stop.contains(-1) { usleep(1_000) }
        let before = acknowledged.all
        let copy = work.appendingPathComponent("copy.db")
        let backup = try daemon.cli(["backup", copy.path])
        let duringBackup = acknowledged.count
        stop.insert(0)
        group.wait()
        XCTAssertFalse(stop.contains(-1), "every import was answered 201")
        XCTAssertEqual(backup.status, 0, backup.stderr)
        XCTAssertTrue(backup.stdout.contains("backed up \(daemon.dataDir.path)/lastset.db to \(copy.path)"), backup.stdout)
        XCTAssertGreaterThan(duringBackup, before.count, "imports kept committing while the backup ran")

        XCTAssertEqual(try SQLiteShell.query(copy, "PRAGMA quick_check"), ["ok"])
        XCTAssertEqual(try SQLiteShell.query(copy, "PRAGMA application_id"), ["\(0x4C53_5452)"])
        XCTAssertEqual(
            try SQLiteShell.query(copy, "PRAGMA user_version"), try SQLiteShell.query(database(daemon), "PRAGMA user_version"))
        let inCopy = Set(
            try SQLiteShell.query(
                copy,
                "SELECT json_extract(record, '$.templateVersion') FROM audit_record WHERE kind = 'import' AND result = 'archived'"
            ).compactMap { Int($0) })
        let missing = before.subtracting(inCopy)
        XCTAssertTrue(missing.isEmpty, "imports acknowledged before the backup, missing from it: \(missing.sorted())")
        // Nothing committed while the backup ran is lost from the live database.
        let live = Set(
            try SQLiteShell.query(
                database(daemon),
                "SELECT json_extract(record, '$.templateVersion') FROM audit_record WHERE kind = 'import' AND result = 'archived'"
            ).compactMap { Int($0) })
        XCTAssertEqual(live, acknowledged.all)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path).sorted(), ["copy.db"], "no temporary left")
        XCTAssertFalse(
            try FileManager.default.contentsOfDirectory(atPath: daemon.dataDir.path).contains {
                $0.hasPrefix(".lastset-backup-")
            },
            "the daemon's copy is unlinked")

        // Restored as docs/RELIABILITY.md says (a data directory holding only the copy as lastset.db): it serves.
        let restored = work.appendingPathComponent("restored")
        try FileManager.default.createDirectory(at: restored, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: copy, to: restored.appendingPathComponent("lastset.db"))
        XCTAssertEqual(daemon.stop(), 0)
        let second = try DaemonHarness(config: String(contentsOf: daemon.configURL, encoding: .utf8), dataDirectory: restored)
        defer { _ = second.stop() }
        let audit = try second.decode(AuditPage.self, try second.api("GET", "/v1/audit?kind=import&limit=10000"))
        XCTAssertEqual(Set(audit.records.compactMap(\.templateVersion)), inCopy)
    }

    func testABackupRefusesAnExistingFileALinkAndTheLiveDatabaseAndForceReplacesAFile() throws {
        let (daemon, _) = try daemonWithATemplate()
        defer { _ = daemon.stop() }
        let copy = work.appendingPathComponent("copy.db")
        try Data("an older copy".utf8).write(to: copy)
        var r = try daemon.cli(["backup", copy.path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("\(copy.path) already exists: give --force to replace it"), r.stderr)
        XCTAssertEqual(try String(contentsOf: copy, encoding: .utf8), "an older copy")

        let target = work.appendingPathComponent("target.txt")
        try Data("not a database".utf8).write(to: target)
        let link = work.appendingPathComponent("link.db")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        for arguments in [["backup", link.path], ["backup", link.path, "--force"]] {
            r = try daemon.cli(arguments)
            XCTAssertEqual(r.status, 1)
            XCTAssertTrue(
                r.stderr.contains("\(link.path) is a symbolic link: a backup is never written through a link"), r.stderr)
        }
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "not a database")

        r = try daemon.cli(["backup", work.path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("is a directory"), r.stderr)
        r = try daemon.cli(["backup", work.appendingPathComponent("no/such/copy.db").path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("No such file or directory"), r.stderr)
        r = try daemon.cli(["backup", daemon.dataDir.appendingPathComponent("lastset.db").path, "--force"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("is the daemon's own database"), r.stderr)
        r = try daemon.cli(["backup"])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.contains("missing argument FILE"), r.stderr)
        // The route itself: no body but {} is accepted.
        let wrongBody = try daemon.api("POST", "/v1/backup", #"{"path":"/tmp/x.db"}"#)
        XCTAssertEqual(wrongBody.status, 400, wrongBody.text)
        XCTAssertTrue(wrongBody.text.contains("unexpected_body"), wrongBody.text)

        r = try daemon.cli(["--json", "backup", copy.path, "--force"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try SQLiteShell.query(copy, "PRAGMA quick_check"), ["ok"])
        let summary = try JSONDecoder().decode(Backup.self, from: Data(r.stdout.utf8))
        XCTAssertEqual(summary.file, copy.path)
        XCTAssertEqual(summary.bytes, Int64(try Data(contentsOf: copy).count))
        XCTAssertEqual(summary.sha256, SHA256.hex(try Data(contentsOf: copy)))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: work.path).sorted(), ["copy.db", "link.db", "target.txt"])
    }

    /// `lastset audit --json`'s records, each encoded as the API encodes a record (one line, keys sorted).
    private func shownLines(_ daemon: DaemonHarness) throws -> [String] {
        let r = try daemon.cli(["--json", "audit", "--limit", "10000"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let page = try APICoding.decoder().decode(AuditPage.self, from: Data(r.stdout.utf8))
        return try page.records.map { String(decoding: try APICoding.encoder().encode($0), as: UTF8.self) }
    }

    /// The lines of every file of `audit-archive/`, files in the order of their first seq.
    private func archivedLines(_ daemon: DaemonHarness) throws -> (files: [String], lines: [String]) {
        let dir = daemon.dataDir.appendingPathComponent("audit-archive")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted {
            (Int($0.split(separator: "-")[1]) ?? 0) < (Int($1.split(separator: "-")[1]) ?? 0)
        }
        var lines: [String] = []
        for name in names {
            let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            lines += text.split(separator: "\n").map(String.init)
        }
        return (names, lines)
    }

    func testRecordsPastTheBoundAreExportedAsLastsetAuditShowsThemThenRemoved() throws {
        let (daemon, file) = try daemonWithATemplate(audit: "audit: { keepRecords: 3 },")
        defer { _ = daemon.stop() }
        for _ in 0..<7 {
            let r = try daemon.client.send(method: "POST", path: "/v1/pages/heating/templates", body: file)
            XCTAssertEqual(r.status, 201, r.text)
        }
        let shown = try shownLines(daemon)
        XCTAssertEqual(shown.count, 8, "the capture and 7 imports")
        XCTAssertEqual(daemon.stop(), 0)
        try daemon.restart()
        XCTAssertTrue(daemon.stderrContains("audit retention: exported 5 records to "), daemon.stderr)

        let (files, lines) = try archivedLines(daemon)
        XCTAssertEqual(files.count, 1)
        XCTAssertEqual(lines, Array(shown.prefix(5)), "the file holds the 5 oldest records, byte for byte as shown")
        let now = try daemon.decode(AuditPage.self, try daemon.api("GET", "/v1/audit?limit=100"))
        XCTAssertEqual(now.records.count, 4)
        XCTAssertEqual(
            try now.records.prefix(3).map { String(decoding: try APICoding.encoder().encode($0), as: UTF8.self) },
            Array(shown.suffix(3)))
        let retention = try XCTUnwrap(now.records.last)
        XCTAssertEqual(retention.kind, .retention)
        XCTAssertEqual(retention.who, "lastsetd")
        XCTAssertTrue(retention.message?.contains("audit-archive/\(files[0])") ?? false, retention.message ?? "")
        XCTAssertEqual(try SQLiteShell.query(database(daemon), "SELECT count(*) FROM audit_record"), ["4"])
        let cli = try daemon.cli(["audit", "--kind", "retention"])
        XCTAssertEqual(cli.status, 0, cli.stderr)
        XCTAssertTrue(cli.stdout.contains("retention"), cli.stdout)
    }

    func testAKillBetweenTheExportAndTheRemovalLosesNothingAndDuplicatesNothing() throws {
        let library = try buildFaultLibrary(killAfterArchiveSource, in: work)
        let flag = work.appendingPathComponent("kill-after-archive")
        let (daemon, file) = try daemonWithATemplate(
            audit: "audit: { keepRecords: 3 },",
            environment: ["LD_PRELOAD": library, "LASTSET_FAULT_KILL_AFTER_ARCHIVE": flag.path])
        for _ in 0..<7 {
            let r = try daemon.client.send(method: "POST", path: "/v1/pages/heating/templates", body: file)
            XCTAssertEqual(r.status, 201, r.text)
        }
        let rowsBefore = try SQLiteShell.query(database(daemon), "SELECT record FROM audit_record ORDER BY seq")
        XCTAssertEqual(daemon.stop(), 0)

        FileManager.default.createFile(atPath: flag.path, contents: nil)
        try daemon.restart()
        // Killed by the fault right after the file was put in place, before the removal's commit.
        let status = daemon.process.waitForExit(timeout: 30)
        XCTAssertEqual(status, 128 + SIGKILL, "killed by the fault library")
        let (killedFiles, killedLines) = try archivedLines(daemon)
        XCTAssertEqual(killedFiles.count, 1)
        XCTAssertEqual(killedLines, Array(rowsBefore.prefix(5)), "exported and durable")
        XCTAssertEqual(
            try SQLiteShell.query(database(daemon), "SELECT record FROM audit_record ORDER BY seq"), rowsBefore,
            "nothing removed: the commit never happened")

        try FileManager.default.removeItem(at: flag)
        try daemon.restart()
        defer { _ = daemon.stop() }
        XCTAssertTrue(daemon.stderrContains("audit retention: exported 5 records to "), daemon.stderr)
        XCTAssertTrue(
            daemon.stderr.contains("\(killedFiles[0]) was written by a run whose removal never committed"), daemon.stderr)
        let (files, lines) = try archivedLines(daemon)
        XCTAssertEqual(files.count, 1)
        XCTAssertEqual(lines, Array(rowsBefore.prefix(5)), "each record once")
        let left = try SQLiteShell.query(
            database(daemon), "SELECT record FROM audit_record WHERE kind != 'retention' ORDER BY seq")
        XCTAssertEqual(left, Array(rowsBefore.suffix(3)))
        XCTAssertEqual(
            try SQLiteShell.query(database(daemon), "SELECT count(*) FROM audit_record WHERE kind = 'retention'"), ["1"])
    }
}

/// Template versions acknowledged by the import threads (and the stop flag), behind a lock.
private final class LockedVersions: @unchecked Sendable {
    private let lock = NSLock()
    private var set = Set<Int>()
    func insert(_ v: Int) { lock.withLock { _ = set.insert(v) } }
    func contains(_ v: Int) -> Bool { lock.withLock { set.contains(v) } }
    var count: Int { lock.withLock { set.count } }
    var all: Set<Int> { lock.withLock { set } }
}

/// What `lastset --json backup` prints.
private struct Backup: Decodable {
    var file: String
    var bytes: Int64
    var sha256: String
}
