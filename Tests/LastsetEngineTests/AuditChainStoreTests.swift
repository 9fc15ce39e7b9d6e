import Foundation
import LastsetCore
import LastsetStore
import TestSupport
import XCTest

@testable import LastsetEngine

/// The audit chain in `lastset.db` (issue 24): every record linked as it is appended, retention keeps the links,
/// a log changed by hand (with `sqlite3`, as an administrator with file access could) is found at start and by
/// `verifyChain`, nothing is written past it, and an acknowledgment with a reason lets the daemon write again.
final class AuditChainStoreTests: XCTestCase {
    private var dir: URL!

    override func setUp() async throws {
        dir = try TestPaths.temporaryDirectory(prefix: "chain")
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func record(_ i: Int, job: String? = nil, result: AuditResult = .succeeded) -> AuditRecord {
        AuditRecord(
            time: Date(timeIntervalSince1970: 1_800_000_000 + Double(i)), kind: .replay, who: "uid:\(i)", pageId: "p",
            device: "d", endpoint: "tcp://127.0.0.1:1", unit: 1, identity: [], templateVersion: i, pageHash: "sha256:00",
            result: result, message: "record \(i)",
            registers: [AuditRegister(registerId: "r", before: .unsigned(1), after: .unsigned(UInt64(i)), status: .replay(.verified))],
            job: job)
    }

    private func fill(_ log: AuditLog, _ n: Int) async throws {
        for i in 0..<n {
            try await log.append(record(i, job: "job-\(i)", result: .started))
            try await log.append(record(i, job: "job-\(i)", result: .succeeded))
        }
    }

    private func count(_ db: Database) async throws -> Int {
        try await db.read { c in try c.first("SELECT count(*) FROM audit_record") { Int($0.int64(0)) } ?? 0 }
    }

    /// Runs `sql` on the closed database with Debian's `sqlite3`, as an administrator would.
    private func sqlite3(_ sql: String) throws {
        try SQLiteShell.write(dir.appendingPathComponent("lastset.db"), sql)
    }

    func testRecordsAreChainedAcrossRetentionAndTheLogVerifiesIntact() async throws {
        let db = try RecordStore.open(dataDirectory: dir)
        defer { _ = db.close() }
        let log = AuditLog(database: db)
        try await fill(log, 30)
        _ = try await AuditRetention(database: db, batchRecords: 7).run(AuditConfig(keepRecords: 10))
        let pruned = try await db.read { c in try c.first("SELECT count(*) FROM audit_pruned") { Int($0.int64(0)) } ?? 0 }
        XCTAssertGreaterThan(pruned, 0, "retention removed records and kept their links")
        try await fill(log, 3)
        let report = try await log.verifyChain()
        XCTAssertEqual(report.findings, [])
        let retentions = try await retentionRecords(db)
        XCTAssertEqual(report.records, 66 + retentions, "every record and every link retention kept")
        let broken = try await log.chainBroken()
        XCTAssertNil(broken)
    }

    private func retentionRecords(_ db: Database) async throws -> Int {
        try await db.read { c in
            try c.first("SELECT count(*) FROM audit_record WHERE kind = 'retention'") { Int($0.int64(0)) } ?? 0
        }
    }

    func testAnEditFoundAtStartStopsEveryWriteUntilAnAdministratorAcknowledgesIt() async throws {
        do {
            let db = try RecordStore.open(dataDirectory: dir)
            try await fill(AuditLog(database: db), 5)
            XCTAssertNil(db.close())
        }
        try sqlite3("UPDATE audit_record SET record = replace(record, 'record 2', 'record 9') WHERE seq = 5")
        let db = try RecordStore.open(dataDirectory: dir)
        defer { _ = db.close() }
        let log = AuditLog(database: db)
        let report = try await log.verifyChain()
        XCTAssertEqual(report.findings, [.edited(seq: 5)])

        // Refused, nothing recorded: the message says what was found and what to do.
        do {
            try await log.append(record(10))
            XCTFail("appended past a broken chain")
        } catch {
            XCTAssertTrue(error.description.contains("record 5 was edited"), error.description)
            XCTAssertTrue(error.description.contains("lastset audit acknowledge"), error.description)
        }
        let stored = try await count(db)
        XCTAssertEqual(stored, 10)

        // No reason: refused. With one: recorded, and writing goes on.
        do {
            _ = try await log.acknowledgeChain(who: "uid:0(root)", reason: "  ")
            XCTFail("acknowledged without a reason")
        } catch {
            XCTAssertEqual(error.description, "an acknowledgment of the audit chain needs a reason")
        }
        let ack = try await log.acknowledgeChain(who: "uid:0(root)", reason: "test edit by the commissioning engineer")
        XCTAssertEqual(ack.kind, .chainAcknowledged)
        XCTAssertTrue(ack.message?.contains("record 5 was edited") ?? false, ack.message ?? "")
        XCTAssertTrue(ack.message?.contains("Reason: test edit by the commissioning engineer") ?? false)
        try await log.append(record(11))
        let after = try await log.verifyChain()
        XCTAssertEqual(after.findings, [])
        XCTAssertEqual(after.acknowledged, [.edited(seq: 5)])
        do {
            _ = try await log.acknowledgeChain(who: "uid:0(root)", reason: "again")
            XCTFail("acknowledged an intact chain")
        } catch {
            XCTAssertEqual(error.description, "the audit chain is intact: there is nothing to acknowledge")
        }
    }

    func testRecordsRemovedFromTheEndAreFoundAtTheNextAppend() async throws {
        do {
            let db = try RecordStore.open(dataDirectory: dir)
            try await fill(AuditLog(database: db), 4)
            XCTAssertNil(db.close())
        }
        try sqlite3("DELETE FROM audit_record WHERE seq >= 7")
        let db = try RecordStore.open(dataDirectory: dir)
        defer { _ = db.close() }
        let log = AuditLog(database: db)
        do {
            try await log.append(record(20))
            XCTFail("appended after the log's end was removed")
        } catch {
            XCTAssertTrue(
                error.description.contains("the log ends at record 6, but lastsetd last wrote record 8"), error.description)
        }
        let report = try await log.verifyChain()
        XCTAssertEqual(report.findings, [.headMismatch(expectedSeq: 8, foundSeq: 6)])
    }

    func testALogMadeBeforeTheChainIsChainedWhenTheStoreOpens() async throws {
        do {
            let db = try RecordStore.open(dataDirectory: dir)
            try await fill(AuditLog(database: db), 6)
            XCTAssertNil(db.close())
        }
        // As the release before the chain left it: no links, no head.
        try sqlite3("UPDATE audit_record SET prev = NULL, hash = NULL; DELETE FROM audit_chain;")
        let db = try RecordStore.open(dataDirectory: dir)
        defer { _ = db.close() }
        let log = AuditLog(database: db)
        let report = try await log.verifyChain()
        XCTAssertEqual(report.findings, [])
        XCTAssertEqual(report.records, 12)
        try await log.append(record(30))
        // A record put in without a hash after that is a finding, not a record to chain.
        XCTAssertNil(db.close())
        try sqlite3(
            "INSERT INTO audit_record (time, kind, result, page_id, device, who, job, record) SELECT time, kind, result, page_id, device, who, job, record FROM audit_record WHERE seq = 2"
        )
        let reopened = try RecordStore.open(dataDirectory: dir)
        defer { _ = reopened.close() }
        let found = try await AuditLog(database: reopened).verifyChain().findings
        XCTAssertEqual(found, [.unchained(seq: 14), .headMismatch(expectedSeq: 13, foundSeq: 14)])
    }
}
