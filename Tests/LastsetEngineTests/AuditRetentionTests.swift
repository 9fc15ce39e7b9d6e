import Foundation
import LastsetCore
import LastsetStore
import TestSupport
import XCTest

@testable import LastsetEngine

/// Audit retention (issue 20): records past the bound exported to `audit-archive/` first, then removed in one
/// commit with a `retention` record; unfinished intents never pruned; a stop between the file and the commit
/// neither loses nor duplicates a record.
final class AuditRetentionTests: XCTestCase {
    private var dir: URL!

    override func setUp() async throws {
        dir = try TestPaths.temporaryDirectory(prefix: "retention")
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func record(_ i: Int, job: String? = nil, result: AuditResult = .succeeded) -> AuditRecord {
        AuditRecord(
            time: Date(timeIntervalSince1970: 1_800_000_000 + Double(i)), kind: .replay, who: "uid:\(i)", pageId: "p",
            device: "d", endpoint: "tcp://127.0.0.1:1", unit: 1, identity: [], templateVersion: i, pageHash: "sha256:00",
            result: result, message: nil,
            registers: [AuditRegister(registerId: "r", before: .unsigned(1), after: .unsigned(UInt64(i)), status: .replay(.verified))],
            job: job)
    }

    /// Every row: (seq, result, record), in order.
    private func rows(_ db: Database) async throws -> [(seq: Int64, result: String, record: String)] {
        try await db.read { c in
            var out: [(Int64, String, String)] = []
            try c.rows("SELECT seq, result, record FROM audit_record ORDER BY seq") { row in
                out.append((row.int64(0), row.text(1) ?? "", row.text(2) ?? ""))
                return true
            }
            return out
        }
    }

    /// The lines of every file in `audit-archive/`, by file name.
    private func archived(_ retention: AuditRetention) throws -> [String: [String]] {
        var out: [String: [String]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: retention.directory) {
            let text = try String(contentsOfFile: retention.directory + "/" + name, encoding: .utf8)
            XCTAssertTrue(text.hasSuffix("\n"), name)
            out[name] = text.split(separator: "\n").map(String.init)
        }
        return out
    }

    /// 30 records: replays 0…29, each an intent and its outcome, except job 3 (an intent whose outcome never came)
    /// and job 27 (intent only, still running).
    private func fill(_ log: AuditLog) async throws {
        for i in 0..<30 {
            try await log.append(record(i, job: "job-\(i)", result: .started))
            if i != 3 && i != 27 { try await log.append(record(i, job: "job-\(i)", result: .succeeded)) }
        }
    }

    func testRecordsPastTheBoundAreExportedThenRemovedAndUnfinishedIntentsStay() async throws {
        let db = try RecordStore.open(dataDirectory: dir)
        defer { db.close() }
        let log = AuditLog(database: db)
        try await fill(log)
        let before = try await rows(db)
        let shownBefore = try await log.read(limit: 1_000).records
        XCTAssertEqual(shownBefore.count, 30, "28 outcomes and 2 unfinished intents")

        let retention = AuditRetention(database: db, batchRecords: 7)
        let report = try await retention.run(AuditConfig(keepRecords: 10))
        let after = try await rows(db)
        let files = try archived(retention)

        // Kept: the 10 newest records (jobs 20…29: 9 outcomes and job 27's intent), their folded intents, job 3's
        // unfinished intent, and one retention record per file.
        let shown = try await log.read(limit: 1_000, matching: AuditFilter(kinds: [.replay])).records
        XCTAssertEqual(shown.map(\.job), ["job-3"] + (20..<30).map { "job-\($0)" })
        XCTAssertTrue(after.contains { $0.result == "started" && $0.record.contains("\"job-3\"") }, "the unfinished intent stays")
        let retentionRecords = try await log.read(limit: 1_000, matching: AuditFilter(kinds: [.retention])).records
        XCTAssertEqual(retentionRecords.count, report.files.count)
        XCTAssertGreaterThan(report.files.count, 1, "batches of 7")
        for r in retentionRecords {
            XCTAssertEqual(r.who, "lastsetd")
            XCTAssertEqual(r.result, .archived)
            XCTAssertTrue(r.message?.contains("audit-archive/audit-") ?? false, r.message ?? "")
        }

        // The files hold exactly the rows removed, each once, as the database kept them, in order.
        let kept = Set(after.map(\.seq))
        let removed = before.filter { !kept.contains($0.seq) }
        XCTAssertEqual(removed.count, 38, "jobs 0…2 and 4…19: intent and outcome each")
        let lines = report.files.flatMap { files[$0.name] ?? [] }
        XCTAssertEqual(lines, removed.map(\.record))
        XCTAssertEqual(Set(files.keys), Set(report.files.map(\.name)))
        for file in report.files {
            let range = try XCTUnwrap(AuditRetention.range(ofFile: file.name))
            let inFile = removed.filter { (range.first...range.last).contains($0.seq) && files[file.name]!.contains($0.record) }
            XCTAssertEqual(inFile.first?.seq, range.first)
            XCTAssertEqual(inFile.last?.seq, range.last)
            XCTAssertEqual(file.records, files[file.name]?.count)
        }
        // The outcome lines are what `lastset audit --json` showed of those records (the API's encoding, one line).
        let encoder = APICoding.encoder()
        for r in shownBefore where removed.contains(where: { $0.record.contains("\"\(r.job!)\"") && $0.result != "started" }) {
            let line = String(decoding: try encoder.encode(r), as: UTF8.self)
            XCTAssertTrue(lines.contains(line), "\(r.job!): \(line)")
        }

        // A second run finds nothing more past the bound.
        let again = try await retention.run(AuditConfig(keepRecords: 10))
        XCTAssertEqual(again.files, [])
        XCTAssertEqual(again.redone, [])
    }

    func testAStopBetweenTheFileAndTheCommitLosesAndDuplicatesNothing() async throws {
        let db = try RecordStore.open(dataDirectory: dir)
        defer { db.close() }
        let log = AuditLog(database: db)
        try await fill(log)
        let retention = AuditRetention(database: db)
        let policy = AuditConfig(keepRecords: 10)
        // The first part of a run only: the file is written and durable, the commit never happens (a kill there).
        let bounds = try await retention.bounds(policy, now: Date())
        let batch = try await retention.selectBatch(below: XCTUnwrap(bounds))
        XCTAssertEqual(batch.count, 38)
        try FileManager.default.createDirectory(atPath: retention.directory, withIntermediateDirectories: true)
        let fd = open(retention.directory, O_RDONLY | O_DIRECTORY)
        let orphan = try retention.export(Array(batch.prefix(20)), into: fd)
        close(fd)
        // And a partial file of a run stopped while writing.
        try Data("{\"torn\":".utf8).write(to: URL(fileURLWithPath: retention.directory + "/.audit-1-40.jsonl.partial"))
        // Meanwhile more records come (the next run's selection differs from the interrupted one's).
        for i in 30..<35 { try await log.append(record(i, job: "job-\(i)")) }
        let before = try await rows(db)
        XCTAssertEqual(before.count, 63, "nothing was removed by the interrupted run")

        let report = try await retention.run(policy)
        XCTAssertEqual(report.redone, [orphan.name])
        XCTAssertEqual(report.partialsRemoved, [".audit-1-40.jsonl.partial"])
        let after = try await rows(db)
        let files = try archived(retention)
        XCTAssertFalse(files.keys.contains(orphan.name) && !report.files.map(\.name).contains(orphan.name))
        let lines = report.files.flatMap { files[$0.name] ?? [] }
        XCTAssertEqual(Set(files.keys), Set(report.files.map(\.name)), "no file but this run's")
        // Every record is in the database or in exactly one line of the files.
        let kept = after.filter { $0.result != "archived" || !$0.record.contains("\"retention\"") }.map(\.record)
        XCTAssertEqual(Set(lines).count, lines.count, "no record in two lines")
        XCTAssertEqual((lines + kept).sorted(), before.map(\.record).sorted())
    }

    func testNothingIsPrunedWithoutABoundOrBelowIt() async throws {
        let db = try RecordStore.open(dataDirectory: dir)
        defer { db.close() }
        let log = AuditLog(database: db)
        try await fill(log)
        let retention = AuditRetention(database: db)
        let none = try await retention.run(AuditConfig())
        XCTAssertEqual(none.files, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: retention.directory), "no section, no folder")
        // 30 records: within 28 + its slack of 2, nothing goes.
        XCTAssertEqual(AuditRetention.slack(keepRecords: 28), 2)
        let below = try await retention.run(AuditConfig(keepRecords: 28))
        XCTAssertEqual(below.files, [])
        // By age: every record is from 2027, so keeping 1 day of them as of 2027-01-16 keeps none but the unfinished.
        let days = try await retention.run(AuditConfig(keepDays: 1), now: Date(timeIntervalSince1970: 1_800_000_000 + 86_400 * 2))
        XCTAssertEqual(days.records, 56)
        let left = try await rows(db)
        XCTAssertEqual(left.filter { $0.result == "started" }.count, 2, "jobs 3 and 27: no outcome")
        // A link planted as the folder is refused, never followed.
        let other = try RecordStore.open(dataDirectory: dir.appendingPathComponent("other"))
        defer { other.close() }
        try await AuditLog(database: other).append(record(1))
        try await AuditLog(database: other).append(record(2))
        let elsewhere = dir.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let planted = AuditRetention(database: other)
        try FileManager.default.createSymbolicLink(atPath: planted.directory, withDestinationPath: elsewhere.path)
        do {
            _ = try await planted.run(AuditConfig(keepRecords: 1))
            XCTFail("a link as audit-archive")
        } catch {
            XCTAssertTrue(error.description.contains("symbolic link"), error.description)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), [])
        let otherRows = try await rows(other)
        XCTAssertEqual(otherRows.count, 2)
    }
}
