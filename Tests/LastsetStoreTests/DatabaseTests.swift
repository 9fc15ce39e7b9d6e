import Foundation
import TestSupport
import XCTest

@testable import LastsetStore

#if canImport(Glibc)
    import Glibc
#endif

/// The database owner (issue 20, phase 1): one writer that group-commits, each caller resumed only once the
/// commit holding its rows is durable, a failed commit failing exactly its callers, errors naming the file.
final class DatabaseTests: XCTestCase {
    private var dir: URL!

    override func setUp() async throws {
        dir = try TestPaths.temporaryDirectory(prefix: "database")
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private static let schema = Schema(
        name: "the test database", applicationID: 0x5445_5354,
        migrations: [
            "CREATE TABLE rows (id INTEGER PRIMARY KEY, tag TEXT NOT NULL UNIQUE) STRICT",
            """
            CREATE TABLE parent (id INTEGER PRIMARY KEY) STRICT;
            CREATE TABLE child (id INTEGER PRIMARY KEY,
                parent INTEGER NOT NULL REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED) STRICT;
            """,
        ])

    private func open() throws -> Database {
        try Database(directory: dir, fileName: "test.db", schema: Self.schema)
    }

    private static func insert(_ db: Database, _ tag: String) async throws {
        try await db.write { c in try c.run("INSERT INTO rows (tag) VALUES (?)", .text(tag)) }
    }

    private static func spawnInsert(_ db: Database, _ tag: String) -> Task<Void, any Error> {
        Task { try await insert(db, tag) }
    }

    private static func tags(_ db: Database) async throws -> [String] {
        try await db.read { c in
            var out: [String] = []
            try c.rows("SELECT tag FROM rows ORDER BY tag") { row in
                out.append(row.text(0) ?? "")
                return true
            }
            return out
        }
    }

    /// Holds the writer inside a write until `release` is signalled; returns once the writer is inside it.
    private func holdWriter(_ db: Database, tag: String, release: DispatchSemaphore) -> Task<Void, any Error> {
        let inside = DispatchSemaphore(value: 0)
        let task = Task {
            try await db.write { c in
                try c.run("INSERT INTO rows (tag) VALUES (?)", .text(tag))
                inside.signal()
                release.wait()
            }
        }
        inside.wait()
        return task
    }

    private func waitQueued(_ db: Database, _ n: Int) {
        let deadline = Date().addingTimeInterval(10)
        while db.statistics.queued < n && Date() < deadline { usleep(1_000) }
        XCTAssertEqual(db.statistics.queued, n, "writes waiting for the next transaction")
    }

    /// 31 writers arriving while a commit is being made share the next transaction: 2 commits for 32 writes.
    func testWritesArrivingDuringACommitShareTheNextOne() async throws {
        let db = try open()
        let release = DispatchSemaphore(value: 0)
        let first = holdWriter(db, tag: "first", release: release)
        let others = (0..<31).map { i in Task { try await Self.insert(db, "w\(i)") } }
        waitQueued(db, 31)
        release.signal()
        try await first.value
        for t in others { try await t.value }
        let stats = db.statistics
        XCTAssertEqual(stats.commits, 2, "\(stats)")
        XCTAssertEqual(stats.writes, 32)
        let found = try await Self.tags(db)
        XCTAssertEqual(found.count, 32)

        // Without holding anything: 64 writers at once still take far fewer than 64 commits.
        let before = db.statistics.commits
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<64 { group.addTask { try await Self.insert(db, "free\(i)") } }
            try await group.waitForAll()
        }
        let commits = db.statistics.commits - before
        XCTAssertLessThan(commits, 64)
        print("group commit: 64 concurrent writers took \(commits) commits")
    }

    /// A commit that fails (a deferred foreign key checked at COMMIT) fails every write it held and nothing
    /// else: the commit before it and the one after it stand.
    func testAFailedCommitFailsExactlyItsCallers() async throws {
        let db = try open()
        let release = DispatchSemaphore(value: 0)
        let first = holdWriter(db, tag: "before", release: release)
        let good = (0..<4).map { i in Task { try await Self.insert(db, "doomed\(i)") } }
        waitQueued(db, 4)
        let bad = Task {
            try await db.write { c in try c.run("INSERT INTO child (parent) VALUES (42)") }
        }
        waitQueued(db, 5)
        release.signal()
        try await first.value
        var failures: [String] = []
        for t in good {
            do {
                try await t.value
            } catch {
                failures.append("\(error)")
            }
        }
        do {
            try await bad.value
            XCTFail("a commit breaking a deferred foreign key succeeded")
        } catch {
            failures.append("\(error)")
        }
        XCTAssertEqual(failures.count, 5, "every write of the failed commit fails: \(failures)")
        for f in failures {
            XCTAssertTrue(f.contains("cannot commit to \(db.path)"), f)
            XCTAssertTrue(f.contains("SQLITE_CONSTRAINT_FOREIGNKEY"), f)
        }
        try await Self.insert(db, "after")
        let found = try await Self.tags(db)
        XCTAssertEqual(found, ["after", "before"])
        XCTAssertEqual(db.statistics.failedCommits, 1)
        XCTAssertEqual(db.statistics.commits, 2)
    }

    /// A write whose own statement fails is undone alone (its savepoint); the others of its transaction commit.
    func testAWriteThatFailsIsUndoneAloneAndItsTransactionCommits() async throws {
        let db = try open()
        try await Self.insert(db, "taken")
        let release = DispatchSemaphore(value: 0)
        let first = holdWriter(db, tag: "first", release: release)
        let a = Self.spawnInsert(db, "a")
        waitQueued(db, 1)
        let clash = Task {
            try await db.write { c in
                try c.run("INSERT INTO rows (tag) VALUES ('half')")
                return try c.run("INSERT INTO rows (tag) VALUES ('taken')")
            }
        }
        waitQueued(db, 2)
        let b = Self.spawnInsert(db, "b")
        waitQueued(db, 3)
        let commitsBefore = db.statistics.commits
        release.signal()
        try await first.value
        try await a.value
        try await b.value
        do {
            try await clash.value
            XCTFail("a duplicate tag was written")
        } catch let error as DatabaseError {
            XCTAssertEqual(error.kind, .constraint)
            XCTAssertTrue(error.description.contains("SQLITE_CONSTRAINT_UNIQUE"), error.description)
        }
        let found = try await Self.tags(db)
        XCTAssertEqual(found, ["a", "b", "first", "taken"], "the failed write's first row is undone with it")
        XCTAssertEqual(db.statistics.commits - commitsBefore, 2)
    }

    /// A full database (SQLite's page limit standing in for the disk) fails the write with SQLITE_FULL, naming the
    /// file, and keeps nothing of it; smaller writes still go in.
    func testAFullDatabaseFailsTheWriteNamingTheFile() async throws {
        let db = try open()
        try await db.write { c in
            let pages = try c.first("PRAGMA page_count") { $0.int64(0) } ?? 0
            return try c.execute("PRAGMA max_page_count = \(pages + 2)")
        }
        do {
            try await db.write { c in
                for i in 0..<2_000 {
                    try c.run("INSERT INTO rows (tag) VALUES (?)", .text(String(repeating: "x", count: 200) + "\(i)"))
                }
            }
            XCTFail("2,000 rows fitted in two pages")
        } catch let error as DatabaseError {
            XCTAssertEqual(error.kind, .full, error.description)
            XCTAssertEqual(error.errno, ENOSPC)
            XCTAssertTrue(error.description.contains(db.path), error.description)
            XCTAssertTrue(error.description.contains("SQLITE_FULL"), error.description)
        }
        try await Self.insert(db, "small")
        let found = try await Self.tags(db)
        XCTAssertEqual(found, ["small"])
    }

    /// What opening refuses, each with the file and why: a link, a file that is not a database, a damaged
    /// database, one of a newer schema, one of another program.
    func testOpeningRefusesLinksDamageAndNewerSchemasNamingTheFile() async throws {
        let real = dir.appendingPathComponent("elsewhere.db")
        try Data().write(to: real)
        XCTAssertEqual(symlink(real.path, dir.appendingPathComponent("test.db").path), 0)
        XCTAssertThrowsError(try open()) { error in
            XCTAssertTrue("\(error)".contains("symbolic link"), "\(error)")
            XCTAssertTrue("\(error)".contains("test.db"), "\(error)")
        }
        unlink(dir.appendingPathComponent("test.db").path)

        try Data(repeating: 0x41, count: 8192).write(to: dir.appendingPathComponent("test.db"))
        XCTAssertThrowsError(try open()) { error in
            let e = error as? DatabaseError
            XCTAssertEqual(e?.kind, .corrupt, "\(error)")
            XCTAssertTrue("\(error)".contains("SQLITE_NOTADB"), "\(error)")
            XCTAssertTrue("\(error)".contains("restore it from a backup"), "\(error)")
        }
        unlink(dir.appendingPathComponent("test.db").path)

        let file = dir.appendingPathComponent("test.db")
        func filled() async throws -> Data {
            unlink(file.path)
            let db = try open()
            try await db.write { c in
                for i in 0..<3_000 {
                    try c.run("INSERT INTO rows (tag) VALUES (?)", .text("row-\(i)-" + String(repeating: "y", count: 100)))
                }
            }
            // Closed: the WAL is folded into the file and removed, so the file alone is the database.
            XCTAssertNil(db.close())
            XCTAssertFalse(FileManager.default.fileExists(atPath: file.path + "-wal"), "a closed database leaves no WAL")
            return try Data(contentsOf: file)
        }
        // Pages 3 to 12 overwritten: the b-tree is damaged.
        let whole = try await filled()
        XCTAssertGreaterThan(whole.count, 40 * 4096)
        let fd = Glibc.open(file.path, O_WRONLY)
        let garbage = [UInt8](repeating: 0xA5, count: 4096)
        for page in 2..<12 { _ = garbage.withUnsafeBytes { pwrite(fd, $0.baseAddress, 4096, off_t(page * 4096)) } }
        Glibc.close(fd)
        XCTAssertThrowsError(try open()) { error in
            XCTAssertEqual((error as? DatabaseError)?.kind, .corrupt, "\(error)")
            XCTAssertTrue("\(error)".contains("test.db"), "\(error)")
            XCTAssertTrue("\(error)".contains("restore it from a backup"), "\(error)")
        }
        // Cut to half its length (a copy that stopped half-way, a full disk).
        _ = try await filled()
        XCTAssertEqual(truncate(file.path, off_t(whole.count / 2)), 0)
        XCTAssertThrowsError(try open()) { error in
            XCTAssertEqual((error as? DatabaseError)?.kind, .corrupt, "\(error)")
            XCTAssertTrue("\(error)".contains("test.db"), "\(error)")
        }

        let newer = Schema(
            name: "the test database", applicationID: Self.schema.applicationID, migrations: Self.schema.migrations + ["SELECT 1"]
        )
        _ = try Database(directory: dir, fileName: "newer.db", schema: newer)
        XCTAssertThrowsError(try Database(directory: dir, fileName: "newer.db", schema: Self.schema)) { error in
            XCTAssertTrue("\(error)".contains("schema is version 3, written by a newer lastsetd"), "\(error)")
        }
        let other = Schema(name: "another program", applicationID: 7, migrations: ["SELECT 1"])
        XCTAssertThrowsError(try Database(directory: dir, fileName: "newer.db", schema: other)) { error in
            XCTAssertTrue("\(error)".contains("it is not another program"), "\(error)")
        }
    }

    /// SQLite's own open refuses a link (SQLITE_OPEN_NOFOLLOW), whatever `Database` checked before it: a link
    /// planted between the check and the open is refused too.
    func testTheConnectionItselfRefusesALink() throws {
        let real = dir.appendingPathComponent("real.db")
        _ = try Database(directory: dir, fileName: "real.db", schema: Self.schema).close()
        let link = dir.appendingPathComponent("link.db")
        XCTAssertEqual(symlink(real.path, link.path), 0)
        XCTAssertThrowsError(try Connection(path: link.path, readOnly: false)) { error in
            XCTAssertEqual((error as? DatabaseError)?.codeName, "SQLITE_CANTOPEN_SYMLINK", "\(error)")
            XCTAssertTrue("\(error)".contains("symbolic link"), "\(error)")
        }
    }

    /// The WAL and shared-memory files planted as links to files outside, beside a new database and beside one
    /// in use: never read or written through. SQLite opens them with the database's SQLITE_OPEN_NOFOLLOW (a
    /// database in WAL mode is then refused, naming the file); beside a new one it replaces the stale link.
    func testPlantedWALAndSharedMemoryLinksAreNeverWrittenThrough() async throws {
        for suffix in ["-wal", "-shm"] {
            for existing in [false, true] {
                let outside = dir.appendingPathComponent("outside\(suffix)")
                try Data("untouched".utf8).write(to: outside)
                let name = "linked\(suffix.dropFirst())\(existing ? "-existing" : "").db"
                if existing {
                    let db = try Database(directory: dir, fileName: name, schema: Self.schema)
                    try await db.write { c in try c.run("INSERT INTO rows (tag) VALUES ('before')") }
                    XCTAssertNil(db.close())
                }
                XCTAssertEqual(symlink(outside.path, dir.appendingPathComponent(name + suffix).path), 0)
                do {
                    let db = try Database(directory: dir, fileName: name, schema: Self.schema)
                    try await db.write { c in try c.run("INSERT INTO rows (tag) VALUES ('x')") }
                    XCTAssertNil(db.close())
                    var st = stat()
                    XCTAssertFalse(
                        lstat(dir.appendingPathComponent(name + suffix).path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK,
                        "\(name)\(suffix) is still a link after the database used it")
                } catch {
                    XCTAssertTrue("\(error)".contains(name), "\(error)")
                }
                XCTAssertEqual(
                    try String(contentsOf: outside, encoding: .utf8), "untouched",
                    "\(name): written through the \(suffix) link")
                try FileManager.default.removeItem(at: outside)
            }
        }
    }

    /// Migrations run once, forward, each with its version; reopening runs none again.
    func testTheSchemaIsMigratedForwardOnce() async throws {
        let v1 = Schema(
            name: "the test database", applicationID: Self.schema.applicationID, migrations: [Self.schema.migrations[0]])
        do {
            let db = try Database(directory: dir, fileName: "test.db", schema: v1)
            try await Self.insert(db, "kept")
        }
        let db = try open()
        try await db.write { c in
            try c.run("INSERT INTO parent (id) VALUES (1)")
            try c.run("INSERT INTO child (parent) VALUES (1)")
        }
        let found = try await Self.tags(db)
        XCTAssertEqual(found, ["kept"])
        let version = try await db.read { c in try c.first("PRAGMA user_version") { $0.int64(0) } }
        XCTAssertEqual(version, 2)
        var st = stat()
        XCTAssertEqual(stat(db.path, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o640)
    }

    // MARK: the probe under strace and a fault library

    private func runProbe(_ steps: [String], environment: [String: String] = [:], trace: URL? = nil) throws -> [String] {
        let probe = try TestPaths.executable("lastset-store-probe")
        let (executable, arguments) =
            try trace.map {
                (
                    try SyscallTrace.executable(),
                    SyscallTrace.command(
                        [probe.path, dir.path] + steps, tracing: Array(SyscallTrace.syncCalls) + ["write"], into: $0)
                )
            } ?? (probe, [dir.path] + steps)
        let run = try ProgramRun.run(
            executable, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        XCTAssertEqual(run.status, 0, run.stderr)
        return run.stdout.split(separator: "\n").map(String.init)
    }

    /// Counted with strace (every thread): one commit is one fsync of the WAL; 32 writers at once share commits
    /// (fewer fsyncs than writers, one per commit made); no writer is told "ok" before the fsync of its commit
    /// has returned.
    func testOneCommitIsOneFsyncAndNoWriteIsAcknowledgedBeforeIt() throws {
        let traceFile = dir.appendingPathComponent("trace.txt")
        let lines = try runProbe(["mark:one", "round:1:1", "mark:many", "round:2:32", "mark:end"], trace: traceFile)
        XCTAssertEqual(lines.last, "DONE", "\(lines)")
        let trace = try SyscallTrace(file: traceFile)
        guard let one = trace.indexOfWrite(containing: "MARK one"), let many = trace.indexOfWrite(containing: "MARK many"),
            let end = trace.indexOfWrite(containing: "MARK end")
        else { return XCTFail("markers missing from the trace") }
        let first = trace.calls(SyscallTrace.syncCalls, between: one, and: many)
        XCTAssertEqual(first.count, 1, "one write, one commit: \(first.map(\.text))")
        let commits = lines.first { $0.hasPrefix("ROUND 2 ") }.flatMap { $0.split(separator: " ")[2].split(separator: "=").last }
            .flatMap { Int($0) }
        let second = trace.calls(SyscallTrace.syncCalls, between: many, and: end)
        XCTAssertEqual(second.count, commits, "one fsync per commit: \(second.map(\.text))")
        XCTAssertLessThan(commits ?? 99, 32, "32 concurrent writers shared no commit")
        print("fsyncs: 1 write -> \(first.count); 32 concurrent writes -> \(second.count) (\(commits ?? -1) commits)")

        // Each "ACK" line is written after an fsync that had returned since the round began.
        for (start, stop, round) in [(one, many, 1), (many, end, 2)] {
            for i in (start + 1)..<stop where trace.events[i].name == "write" && trace.events[i].text.contains("ACK \(round) ") {
                let syncedBefore = trace.events[(start + 1)..<i].contains {
                    $0.ends && SyscallTrace.syncCalls.contains($0.name) && $0.text.hasSuffix("= 0")
                }
                XCTAssertTrue(syncedBefore, "acknowledged before any fsync returned: \(trace.events[i].text)")
            }
        }
    }

    /// A WAL past `checkpointFrames` is checkpointed only once the writer has had no write for a while — never
    /// right after a job's commit, where its fsyncs counted against the job (a 1,000-register replay measured 6
    /// fsyncs instead of 2) — and at once past 8 × `checkpointFrames`, so the log stays bounded.
    func testTheWALIsCheckpointedWhenIdleNotRightAfterACommit() async throws {
        let big = String(repeating: "x", count: 8_000)
        func write(_ db: Database, _ n: Int) async throws {
            try await db.write { c in
                for i in 0..<n { try c.run("INSERT INTO rows (tag) VALUES (?)", .text("\(i)-" + big)) }
            }
        }
        func waitForCheckpoint(_ db: Database, within seconds: TimeInterval) async throws -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while db.statistics.checkpoints == 0 && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
            return db.statistics.checkpoints > 0
        }
        let idle = try Database(
            directory: dir, fileName: "idle.db", schema: Self.schema, checkpointFrames: 20, checkpointIdle: .milliseconds(300))
        defer { idle.close() }
        try await write(idle, 12)  // ≈ 30 pages: past 20, under 160
        XCTAssertEqual(idle.statistics.checkpoints, 0, "checkpointed right after the commit")
        let checkpointed = try await waitForCheckpoint(idle, within: 10)
        XCTAssertTrue(checkpointed, "an idle writer never checkpointed the WAL")
        // Past 8 × the threshold: at once, though this writer would wait a minute for idleness.
        let bounded = try Database(
            directory: dir, fileName: "bounded.db", schema: Self.schema, checkpointFrames: 20, checkpointIdle: .seconds(60))
        defer { bounded.close() }
        try await write(bounded, 120)
        let atOnce = try await waitForCheckpoint(bounded, within: 10)
        XCTAssertTrue(atOnce, "a WAL far past the threshold waited for idleness")
    }

    /// Commits coming faster than `checkpointIdle` keep the checkpoint waiting (one timer, set again from the last
    /// commit it finds, not one per drain); once they stop, it runs.
    func testAStreamOfCommitsKeepsTheIdleCheckpointWaitingUntilItStops() async throws {
        let db = try Database(
            directory: dir, fileName: "stream.db", schema: Self.schema, checkpointFrames: 20, checkpointIdle: .milliseconds(400))
        defer { db.close() }
        let big = String(repeating: "y", count: 8_000)
        for i in 0..<12 {  // ≈ 36 pages in all: past 20, under the 160 checkpointed at once
            try await db.write { c in try c.run("INSERT INTO rows (tag) VALUES (?)", .text("\(i)-" + big)) }
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTAssertEqual(db.statistics.checkpoints, 0, "checkpointed while commits kept coming")
        let deadline = Date().addingTimeInterval(10)
        while db.statistics.checkpoints == 0 && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        XCTAssertEqual(db.statistics.checkpoints, 1, "once the commits stopped")
    }

    /// Text given as UTF-8 bytes is stored as TEXT, the same as the `String` it spells; an empty one is an empty text,
    /// never NULL (neither is an empty `String`).
    func testTextFromBytesIsTheTextItSpells() async throws {
        let db = try open()
        defer { db.close() }
        let words = ["Grüße {\"a\":1}", ""]
        for (i, w) in words.enumerated() {
            try await db.write { c in
                try c.run("INSERT INTO rows (id, tag) VALUES (?, ?)", .integer(Int64(2 * i)), .utf8(Array(w.utf8)))
                try c.run("INSERT INTO rows (id, tag) VALUES (?, ?)", .integer(Int64(2 * i + 1)), .text(w + "."))
            }
        }
        let stored = try await db.read { c in
            var out: [String] = []
            try c.rows("SELECT typeof(tag), tag FROM rows ORDER BY id") { row in
                out.append((row.text(0) ?? "NULL") + ":" + (row.text(1) ?? "NULL"))
                return true
            }
            return out
        }
        XCTAssertEqual(stored, ["text:Grüße {\"a\":1}", "text:Grüße {\"a\":1}.", "text:", "text:."])
    }

    /// Writes that do not wait for durability (a replay's per-frame journal events) are committed into the WAL
    /// without an fsync: 20 of them make no fsync at all (strace), yet all survive the process being killed the
    /// moment the last is acknowledged; the next durable write's one fsync covers them.
    func testNonDurableWritesMakeNoFsyncAndSurviveAKill() throws {
        let traceFile = dir.appendingPathComponent("trace.txt")
        let lines = try runProbe(
            ["mark:quiet", "quiet:3:20", "mark:durable", "round:4:1", "mark:end", "crash"], trace: traceFile)
        XCTAssertTrue(lines.contains("QUIET 3 commits=20 nondurable=20"), "\(lines)")
        let trace = try SyscallTrace(file: traceFile)
        guard let quiet = trace.indexOfWrite(containing: "MARK quiet"),
            let durable = trace.indexOfWrite(containing: "MARK durable"), let end = trace.indexOfWrite(containing: "MARK end")
        else { return XCTFail("markers missing from the trace") }
        XCTAssertEqual(trace.calls(SyscallTrace.syncCalls, between: quiet, and: durable).map(\.text), [])
        XCTAssertEqual(trace.calls(SyscallTrace.syncCalls, between: durable, and: end).count, 1)
        let after = try runProbe(["count:3", "count:4"])
        XCTAssertTrue(after.contains("COUNT 3 20") && after.contains("COUNT 4 1"), "\(after)")
        // Killed right after non-durable writes alone, they are there too (in the WAL, replayed at the next open).
        _ = try runProbe(["quiet:5:3", "crash"])
        XCTAssertTrue(try runProbe(["count:5"]).contains("COUNT 5 3"))
    }

    /// An fsync of the WAL failing with EIO (LD_PRELOAD) fails that commit's writer, naming the file and
    /// SQLITE_IOERR_FSYNC, and keeps nothing of it; the next commit works, and both hold after a restart.
    func testAFailedFsyncFailsItsCommitAndTheNextCommitWorks() throws {
        let arm = dir.appendingPathComponent("fail-next-fsync").path
        let library = try buildFaultLibrary(
            """
            #define _GNU_SOURCE
            #include <dlfcn.h>
            #include <errno.h>
            #include <stdlib.h>
            #include <unistd.h>
            static int fail_once(void) {
                const char *arm = getenv("LASTSET_FAULT_ARM");
                if (arm && unlink(arm) == 0) { errno = EIO; return 1; }
                return 0;
            }
            int fsync(int fd) {
                static int (*real)(int); if (!real) real = dlsym(RTLD_NEXT, "fsync");
                return fail_once() ? -1 : real(fd);
            }
            int fdatasync(int fd) {
                static int (*real)(int); if (!real) real = dlsym(RTLD_NEXT, "fdatasync");
                return fail_once() ? -1 : real(fd);
            }
            """, in: dir)
        let env = ["LD_PRELOAD": library, "LASTSET_FAULT_ARM": arm]
        let lines = try runProbe(["arm:\(arm)", "round:1:1", "round:2:1", "count:1", "count:2"], environment: env)
        let failed = lines.first { $0.hasPrefix("ACK 1 0 ") } ?? ""
        XCTAssertTrue(failed.hasPrefix("ACK 1 0 error"), "\(lines)")
        XCTAssertTrue(failed.contains("SQLITE_IOERR_FSYNC"), failed)
        XCTAssertTrue(failed.contains("probe.db"), failed)
        XCTAssertTrue(failed.contains("errno 5"), failed)
        XCTAssertTrue(lines.contains("ACK 2 0 ok"), "\(lines)")
        XCTAssertTrue(lines.contains("COUNT 1 0"), "\(lines)")
        XCTAssertTrue(lines.contains("COUNT 2 1"), "\(lines)")
        let again = try runProbe(["count:1", "count:2"])
        XCTAssertEqual(again.filter { $0.hasPrefix("COUNT") }, ["COUNT 1 0", "COUNT 2 1"])

        // Killed right after the failed commit, before any other write: the frames it wrote to the WAL before the
        // fsync failed must not come back when the next open replays the WAL (the writer overwrites them at once).
        let killed = try runProbe(["arm:\(arm)", "round:3:1", "crash"], environment: env)
        XCTAssertTrue(killed.contains { $0.hasPrefix("ACK 3 0 error") }, "\(killed)")
        let afterKill = try runProbe(["count:3"])
        XCTAssertEqual(afterKill.filter { $0.hasPrefix("COUNT") }, ["COUNT 3 0"], "a failed commit came back after a kill")
    }
}
