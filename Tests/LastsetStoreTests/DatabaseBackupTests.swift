import Foundation
import Synchronization
import TestSupport
import XCTest

@testable import LastsetStore

#if canImport(Glibc)
    import Glibc
#endif

/// `Database.backup` (SQLite's online backup, issue 20): a consistent copy made while writers commit, checked, and
/// never written over anything.
final class DatabaseBackupTests: XCTestCase {
    private var dir: URL!

    override func setUp() async throws {
        dir = try TestPaths.temporaryDirectory(prefix: "backup")
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private static let schema = Schema(
        name: "the test database", applicationID: 0x5445_5354,
        migrations: [
            "CREATE TABLE rows (id INTEGER PRIMARY KEY, tag TEXT NOT NULL UNIQUE, payload BLOB NOT NULL) STRICT",
            "CREATE INDEX rows_by_tag ON rows (tag)",
        ])

    private func open() throws -> Database {
        try Database(directory: dir, fileName: "test.db", schema: Self.schema)
    }

    private static func insert(_ db: Database, _ tag: String) async throws {
        try await db.write { c in
            try c.run("INSERT INTO rows (tag, payload) VALUES (?, ?)", .text(tag), .blob([UInt8](repeating: 0xA5, count: 2_000)))
        }
    }

    /// The tags in the database file at `path`, read with the `sqlite3` shell as an administrator would.
    private static func tags(inFile path: URL) throws -> Set<String> {
        Set(try SQLiteShell.query(path, "SELECT tag FROM rows"))
    }

    func testABackupWhileThirtyTwoWritersCommitHoldsEveryWriteAcknowledgedBeforeItAndOpensClean() async throws {
        let db = try open()
        defer { db.close() }
        // A base of 2,000 rows (≈ 4 MB, about a thousand pages): the copy takes many steps while the writers run.
        for i in 0..<2_000 { try await Self.insert(db, "base-\(i)") }
        let state = WriterState()
        let writers = (0..<32).map { w in
            Task {
                var i = 0
                while !state.stop.withLock({ $0 }) {
                    let tag = "w\(w)-\(i)"
                    try await Self.insert(db, tag)
                    state.acknowledged.withLock { _ = $0.insert(tag) }
                    i += 1
                }
                return i
            }
        }
        // Wait (on the writers' own progress, not a clock) until every writer has had commits acknowledged.
        while state.acknowledged.withLock({ set in (0..<32).contains { w in !set.contains("w\(w)-0") } }) { await Task.yield() }
        let before = state.acknowledged.withLock { $0 }
        let copy = dir.appendingPathComponent("copy.db")
        let made = try await db.backup(to: copy.path, pagesPerStep: 16)
        let afterBackup = state.acknowledged.withLock { $0 }
        state.stop.withLock { $0 = true }
        var written = 0
        for w in writers { written += try await w.value }

        XCTAssertGreaterThan(afterBackup.count, before.count, "the writers kept committing while the backup ran")
        XCTAssertGreaterThan(made.pages, 900)
        XCTAssertEqual(made.schemaVersion, 2)
        XCTAssertEqual(made.applicationID, 0x5445_5354)
        var st = stat()
        XCTAssertEqual(lstat(copy.path, &st), 0)
        XCTAssertEqual(Int64(st.st_size), made.bytes)
        XCTAssertEqual(st.st_mode & 0o777, 0o640)
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy.path + "-wal"), "the copy is one file")
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy.path + "-journal"))

        // Opened by the sqlite3 shell: sound, ours, at the schema's version, self-contained (rollback journal).
        XCTAssertEqual(try SQLiteShell.query(copy, "PRAGMA quick_check"), ["ok"])
        XCTAssertEqual(try SQLiteShell.query(copy, "PRAGMA application_id"), ["\(0x5445_5354)"])
        XCTAssertEqual(try SQLiteShell.query(copy, "PRAGMA user_version"), ["2"])
        XCTAssertEqual(try SQLiteShell.query(copy, "PRAGMA journal_mode"), ["delete"])
        let inCopy = try Self.tags(inFile: copy)
        let base = Set((0..<2_000).map { "base-\($0)" })
        XCTAssertTrue(base.isSubset(of: inCopy))
        let missing = before.subtracting(inCopy)
        XCTAssertTrue(missing.isEmpty, "acknowledged before the backup began, missing from it: \(missing.sorted().prefix(10))")
        // One snapshot: what the copy holds of the writers is exactly a prefix of each writer's sequence.
        for w in 0..<32 {
            let mine = inCopy.filter { $0.hasPrefix("w\(w)-") }.compactMap { Int($0.dropFirst("w\(w)-".count)) }.sorted()
            XCTAssertEqual(mine, Array(0..<mine.count), "writer \(w)")
        }
        // Nothing committed meanwhile is lost from the live database.
        let live = try await db.read { c in
            try c.first("SELECT count(*) FROM rows") { Int($0.int64(0)) } ?? 0
        }
        XCTAssertEqual(live, 2_000 + written)

        // The copy opens as a database of this schema (as lastsetd opens a restored backup).
        let restoredDir = dir.appendingPathComponent("restored")
        try FileManager.default.createDirectory(at: restoredDir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: copy, to: restoredDir.appendingPathComponent("test.db"))
        let restored = try Database(directory: restoredDir, fileName: "test.db", schema: Self.schema)
        let count = try await restored.read { c in try c.first("SELECT count(*) FROM rows") { Int($0.int64(0)) } ?? 0 }
        XCTAssertEqual(count, inCopy.count)
        restored.close()
    }

    func testABackupNeverWritesOverAFileOrThroughALinkAndLeavesNothingWhenItFails() async throws {
        let db = try open()
        defer { db.close() }
        try await Self.insert(db, "one")
        let existing = dir.appendingPathComponent("existing.db")
        try Data("keep me".utf8).write(to: existing)
        do {
            _ = try await db.backup(to: existing.path)
            XCTFail("a backup over an existing file")
        } catch {
            XCTAssertEqual(error.kind, .cannotOpen)
            XCTAssertTrue(error.description.contains(existing.path), error.description)
            XCTAssertTrue(error.description.contains("already exists"), error.description)
        }
        XCTAssertEqual(try String(contentsOf: existing, encoding: .utf8), "keep me")

        let target = dir.appendingPathComponent("target.txt")
        try Data("the link's target".utf8).write(to: target)
        let link = dir.appendingPathComponent("link.db")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        do {
            _ = try await db.backup(to: link.path)
            XCTFail("a backup through a link")
        } catch {
            XCTAssertTrue(error.description.contains(link.path), error.description)
        }
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "the link's target")

        let dangling = dir.appendingPathComponent("dangling.db")
        let nowhere = dir.appendingPathComponent("nowhere.db")
        try FileManager.default.createSymbolicLink(at: dangling, withDestinationURL: nowhere)
        do {
            _ = try await db.backup(to: dangling.path)
            XCTFail("a backup through a dangling link")
        } catch {
            XCTAssertTrue(error.description.contains(dangling.path), error.description)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: nowhere.path), "nothing created where the link points")

        let missingDirectory = dir.appendingPathComponent("no/such/dir/copy.db")
        do {
            _ = try await db.backup(to: missingDirectory.path)
            XCTFail("a backup into a missing directory")
        } catch {
            XCTAssertTrue(error.description.contains("No such file or directory"), error.description)
        }
    }
}

/// What the writers of the backup test share.
private final class WriterState: Sendable {
    let acknowledged = Mutex(Set<String>())
    let stop = Mutex(false)
}
