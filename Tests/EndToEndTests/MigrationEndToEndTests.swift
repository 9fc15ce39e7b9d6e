import Foundation
import Glibc
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// An LD_PRELOAD library for the import's faults: `openat` of a name ending in $LASTSET_FAULT_OPEN_EIO fails with
/// EIO (a file the import must read cannot be), and `renameat` of a name containing $LASTSET_FAULT_RENAME_EIO
/// fails with EIO (a file cannot be moved aside).
private let importFaultSource = #"""
    #define _GNU_SOURCE
    #include <dlfcn.h>
    #include <errno.h>
    #include <fcntl.h>
    #include <stdarg.h>
    #include <stdlib.h>
    #include <string.h>

    static int ends_with(const char *s, const char *suffix) {
        size_t a = strlen(s), b = strlen(suffix);
        return b > 0 && a >= b && strcmp(s + a - b, suffix) == 0;
    }

    static int open_faulted(const char *path) {
        const char *name = getenv("LASTSET_FAULT_OPEN_EIO");
        return name && ends_with(path, name);
    }

    int openat(int dirfd, const char *path, int flags, ...) {
        static int (*real)(int, const char *, int, ...);
        if (!real) real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
        mode_t mode = 0;
        if (flags & (O_CREAT | __O_TMPFILE)) { va_list ap; va_start(ap, flags); mode = va_arg(ap, mode_t); va_end(ap); }
        if (open_faulted(path)) { errno = EIO; return -1; }
        return real(dirfd, path, flags, mode);
    }

    int openat64(int dirfd, const char *path, int flags, ...) {
        static int (*real)(int, const char *, int, ...);
        if (!real) real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat64");
        mode_t mode = 0;
        if (flags & (O_CREAT | __O_TMPFILE)) { va_list ap; va_start(ap, flags); mode = va_arg(ap, mode_t); va_end(ap); }
        if (open_faulted(path)) { errno = EIO; return -1; }
        return real(dirfd, path, flags, mode);
    }

    int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
        static int (*real)(int, const char *, int, const char *);
        if (!real) real = (int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");
        const char *name = getenv("LASTSET_FAULT_RENAME_EIO");
        if (name && *name && strstr(oldpath, name)) { errno = EIO; return -1; }
        return real(olddirfd, oldpath, newdirfd, newpath);
    }
    """#

/// The first start on a data directory written by the release before `lastset.db` (issue 20, phase 2): the
/// fixture `Tests/Fixtures/pre-sqlite/data` was made by that release (`make-data.sh`): captures, an import, a
/// promote, a delete, a replay that succeeded, one that failed with a rollback that failed too, a replay killed
/// while writing (its journal left), the audit log rotated once with a torn last line, and a capture stopped
/// between its version file and its outcome record (motion v2 with only its `started` record).
final class MigrationEndToEndTests: XCTestCase {
    private var work: URL!

    override func setUpWithError() throws {
        work = try TestPaths.temporaryDirectory(prefix: "migration")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: work)
    }

    private var fixture: URL { TestPaths.repoRoot.appendingPathComponent("Tests/Fixtures/pre-sqlite") }

    /// The fixture's data directory, copied to `work/data`.
    private func copyOfTheRelease() throws -> URL {
        let data = work.appendingPathComponent("data")
        try FileManager.default.copyItem(at: fixture.appendingPathComponent("data"), to: data)
        return data
    }

    /// press-a's peer, started by `config()`.
    private var pressA: PymodbusPeer?

    /// The fixture's config with press-a on a pymodbus peer holding the reference values, the others on a port
    /// nobody listens on (nothing is polled; the recovery needs no device).
    private func config() throws -> String {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        pressA = a
        var text = try String(contentsOf: fixture.appendingPathComponent("config.json5"), encoding: .utf8)
        for (id, port) in [("press-a", a.port!), ("press-b", 1), ("press-c", 1), ("press-d", 1)] {
            text = text.replacingOccurrences(
                of: #"(id: "\#(id)", endpoint: "tcp://127\.0\.0\.1:)\d+"#, with: "$1\(port)", options: .regularExpression)
        }
        return text
    }

    /// The fixture's audit lines in the release's order (segment 1, then the live file), the torn one left out.
    private func releaseRecords() throws -> [AuditRecord] {
        let data = fixture.appendingPathComponent("data")
        var out: [AuditRecord] = []
        for name in ["audit.000001.jsonl", "audit.jsonl"] {
            let text = try String(contentsOf: data.appendingPathComponent(name), encoding: .utf8)
            for line in text.split(separator: "\n") {
                guard let r = try? APICoding.decoder().decode(AuditRecord.self, from: Data(line.utf8)) else {
                    XCTAssertEqual(line, #"{"kind":"replay","pageId":"heating","result":"succ"#, "only the torn line")
                    continue
                }
                out.append(r)
            }
        }
        return out
    }

    /// Every file below `dir`, by relative path, with its bytes (a link as its target's path).
    private func tree(_ dir: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let base = dir.resolvingSymlinksInPath().path
        for case let url as URL in FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)! {
            let path = url.resolvingSymlinksInPath().path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            out[String(path.dropFirst(base.count + 1))] = try Data(contentsOf: url)
        }
        return out
    }

    private func versions(_ daemon: DaemonHarness, _ page: String) throws -> [Int] {
        try daemon.decode([TemplateListing].self, try daemon.api("GET", "/v1/pages/\(page)/templates")).map(\.version)
    }

    /// Everything the release's files held is in the database after the first start, in one import: every version
    /// byte for byte (its number and the deleted one's never given again), every audit record in order (the torn
    /// line counted as unreadable), the capture left with only its `started` record completed from the version it
    /// archived, the killed replay recovered from its journal as for any other; the files moved aside whole into
    /// `pre-sqlite/`; nothing imported twice at the next start.
    func testADataDirectoryOfTheReleaseBeforeTheDatabaseIsImportedWholeAtTheFirstStart() throws {
        let data = try copyOfTheRelease()
        let daemon = try DaemonHarness(config: try config(), dataDirectory: data)
        XCTAssertTrue(
            daemon.stderrContains(
                "imported the data directory's files into lastset.db: 5 template versions of 2 pages, 1 deleted marker, 18 audit records and 1 unreadable audit line (kept in audit_unreadable)"
            ), daemon.stderr)
        let releaseLog = try releaseRecords()
        let motionIntent = try XCTUnwrap(releaseLog.last { $0.kind == .capture && $0.pageId == "motion" })
        XCTAssertEqual(motionIntent.result, .started, "the fixture's capture killed before its outcome")
        XCTAssertTrue(
            daemon.stderr.contains("capture of motion (job \(motionIntent.job!)): archived as version 2"), daemon.stderr)

        // Versions: as listed by the release, each file byte for byte.
        XCTAssertEqual(try versions(daemon, "heating"), [4, 2, 1])
        XCTAssertEqual(try versions(daemon, "motion"), [2, 1])
        for (page, v) in [("heating", 1), ("heating", 2), ("heating", 4), ("motion", 1), ("motion", 2)] {
            let file = try daemon.api("GET", "/v1/pages/\(page)/templates/\(v)/file")
            XCTAssertEqual(file.status, 200, file.text)
            XCTAssertEqual(
                Data(file.body),
                try Data(contentsOf: fixture.appendingPathComponent("data/templates/\(page)/v00000\(v).json")), "\(page) v\(v)")
        }
        XCTAssertEqual(try daemon.api("GET", "/v1/pages/heating/templates/3").status, 404, "deleted stays deleted")

        // The audit log: the release's records in order, then the capture's outcome and the killed replay's.
        let rows = try daemon.rawAuditRecords()
        XCTAssertEqual(Array(rows.prefix(releaseLog.count)), releaseLog)
        let added = Array(rows.dropFirst(releaseLog.count))
        XCTAssertEqual(added.map(\.kind), [.capture, .replay], "\(added)")
        if added.count == 2 {
            XCTAssertEqual(added[0].job, motionIntent.job)
            XCTAssertEqual(added[0].result, .archived)
            XCTAssertEqual(added[0].templateVersionId, "2")
            XCTAssertEqual(added[0].registers.map(\.status), [.captured, .captured, .captured])
            XCTAssertTrue(added[0].message?.contains(UnfinishedIntents.note) ?? false, added[0].message ?? "nil")
            XCTAssertEqual(added[1].result, .interrupted)
            XCTAssertEqual(added[1].device, "press-d")
        }
        let page = try daemon.decode(AuditPage.self, try daemon.api("GET", "/v1/audit?limit=1000"))
        XCTAssertEqual(page.unreadable, 1, "the torn line, as the release counted it")
        XCTAssertFalse(page.records.contains { $0.result == .started }, "every intent has its outcome")
        let motion = try daemon.decode(AuditPage.self, try daemon.api("GET", "/v1/audit?page=motion&kind=capture"))
        XCTAssertEqual(motion.records.map(\.templateVersionId), ["1", "2"])
        let failed = try daemon.decode(AuditPage.self, try daemon.api("GET", "/v1/audit?device=press-c&result=failed"))
        XCTAssertEqual(failed.records.count, 1, "the failed replay and its failed rollback")
        XCTAssertEqual(failed.records.first?.rollback, .incomplete)

        // Device state (imported as rows): press-b holds v4, press-d is marked unverified.
        let devices = try daemon.decode([DeviceStatus].self, try daemon.api("GET", "/v1/devices"))
        XCTAssertEqual(devices.first { $0.id == "press-b" }?.applied?["heating"]?.versionId, "4")
        XCTAssertEqual(devices.first { $0.id == "press-d" }?.unverified?.map(\.reason), [.interrupted])

        // The files moved aside whole; none of them left in the data directory.
        let release = try tree(fixture.appendingPathComponent("data"))
        let aside = try tree(data.appendingPathComponent("pre-sqlite"))
        XCTAssertEqual(aside, release)
        let top = try FileManager.default.contentsOfDirectory(atPath: data.path)
        XCTAssertFalse(
            top.contains { ["templates", "journal", "device-state"].contains($0) || $0.hasPrefix("audit.") }, "\(top)")
        XCTAssertEqual(try SQLiteShell.query(data.appendingPathComponent("lastset.db"), "SELECT count(*) FROM replay_journal"), ["0"])

        // The next capture: heating v5 (4 was the last, 3 deleted), one commit with its record.
        try Mbpoll.writeHolding(port: XCTUnwrap(pressA?.port), unit: 1, address: 120, values: [33])
        let captured = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#)
        XCTAssertEqual(try daemon.decode(JobInfo.self, captured).capture?.version, 5, captured.text)
        let count = try daemon.rawAuditRecords().count
        XCTAssertEqual(daemon.stop(), 0)
        try daemon.restart()
        XCTAssertEqual(try daemon.rawAuditRecords().count, count, "nothing imported twice")
        XCTAssertEqual(try versions(daemon, "heating"), [5, 4, 2, 1])
        XCTAssertEqual(daemon.stderr.components(separatedBy: "imported the data directory's files").count, 2)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// A half-done import is redone from scratch: one whose transaction cannot be completed (the audit log cannot
    /// be read, after the versions were inserted) leaves nothing in the database and every file where it was,
    /// and the daemon does not start; the next start imports everything once. An import committed but stopped
    /// while moving its files aside is not made again: the next start moves the rest.
    func testAHalfDoneImportIsRedoneFromScratchAndACommittedOneNeverTwice() throws {
        let data = try copyOfTheRelease()
        let release = try tree(data)
        let library = try buildFaultLibrary(importFaultSource, in: work)
        let configText = try config()
        let configURL = work.appendingPathComponent("lastset.json")
        try configText.write(to: configURL, atomically: true, encoding: .utf8)

        // The transaction fails part-way.
        let run = try DaemonHarness.runToExit(
            ["--config", configURL.path, "--data-dir", data.path, "--socket", work.path + "/s"],
            environment: ["LD_PRELOAD": library, "LASTSET_FAULT_OPEN_EIO": "audit.jsonl"])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("refusing to start: cannot import the data directory's files into lastset.db"), run.stderr)
        XCTAssertTrue(run.stderr.contains("Input/output error") && run.stderr.contains("nothing was imported"), run.stderr)
        var now = try tree(data)
        now = now.filter { !$0.key.hasPrefix("lastset.db") && $0.key != "lastsetd.lock" }
        XCTAssertEqual(now, release, "every file where it was")
        let db = data.appendingPathComponent("lastset.db")
        XCTAssertEqual(try SQLiteShell.query(db, "SELECT count(*) FROM template_version"), ["0"])
        XCTAssertEqual(try SQLiteShell.query(db, "SELECT count(*) FROM audit_record"), ["0"])

        // Committed, but the audit files cannot be moved aside: the daemon serves, says so; the next start moves
        // them without importing again.
        let daemon = try DaemonHarness(
            config: configText, environment: ["LD_PRELOAD": library, "LASTSET_FAULT_RENAME_EIO": "audit"],
            dataDirectory: data)
        XCTAssertTrue(daemon.stderrContains("left in place (the next start moves them): audit.000001.jsonl"), daemon.stderr)
        let imported = try daemon.rawAuditRecords().count
        XCTAssertEqual(imported, 18 + 2, "the release's records, the capture's outcome, the killed replay's")
        XCTAssertEqual(try versions(daemon, "heating"), [4, 2, 1])
        XCTAssertEqual(daemon.stop(), 0)
        let second = try DaemonHarness(config: configText, dataDirectory: data)
        XCTAssertTrue(second.stderrContains("was made at an earlier start"), second.stderr)
        XCTAssertEqual(try second.rawAuditRecords().count, imported, "never imported twice")
        XCTAssertEqual(try versions(second, "heating"), [4, 2, 1])
        let aside = try FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("pre-sqlite").path)
        XCTAssertEqual(aside.sorted(), ["audit.000001.jsonl", "audit.jsonl", "device-state", "journal", "templates"])
        XCTAssertEqual(second.stop(), 0)
    }
}
