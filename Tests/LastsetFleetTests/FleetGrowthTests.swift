import Foundation
import LastsetCore
import LastsetEngine
import LastsetFleet
import LastsetFormats
import TestSupport
import XCTest

/// The growth policy, scaled down, with the real git: git never packs the repository on its own, the daemon packs it
/// after an idle sync (loose objects into one pack, refs packed) and at most once a day under the bounds; the audit
/// export appends only the records after the file's last line, a torn last line cut off and exported again once.
final class FleetGrowthTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory(prefix: "fleet-growth")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    private func record(_ page: String, _ n: Int) -> AuditRecord {
        AuditRecord(
            time: Date(), kind: .replay, who: "uid:1000", pageId: page, device: "press-1", endpoint: "tcp://127.0.0.1:1",
            unit: 1, identity: [], templateVersion: n, pageHash: "sha256:abc", result: .succeeded, message: "replay \(n)",
            registers: [])
    }

    func testTheRepositoryIsPackedAfterAnIdleSyncOnlyAndGitNeverPacksOnItsOwn() async throws {
        let hub = try HubRepository()
        let a = try await FleetHost("line-1", remote: hub.fileURL, in: dir)
        let repository = a.data.appendingPathComponent("fleet")
        XCTAssertEqual(try HubRepository.git(["config", "gc.auto"], in: repository), "0\n")
        XCTAssertEqual(try HubRepository.git(["config", "maintenance.auto"], in: repository), "false\n")
        for i in 0..<6 {
            try await a.capture(page: "page\(i % 3)", value: UInt16(i))
            try await a.audit.append(record("page\(i % 3)", i))
            let busy = await a.synced()
            XCTAssertFalse(FleetUpkeep.isIdle(busy))
            let packed = await a.fleet.upkeep(after: busy)
            XCTAssertNil(packed, "a sync that moved something never packs")
        }
        let before = try await a.fleet.objects()
        XCTAssertGreaterThan(before.loose, 30)
        let idle = await a.synced()
        XCTAssertTrue(FleetUpkeep.isIdle(idle), "\(idle)")
        let now = Date()
        let first = await a.fleet.upkeep(after: idle, now: now)
        let report = try XCTUnwrap(first)
        XCTAssertNil(report.failure)
        XCTAssertEqual(report.decision, .repack(.daily))
        XCTAssertEqual(report.before, before)
        let after = try XCTUnwrap(report.after)
        XCTAssertEqual(after.loose, 0)
        XCTAssertEqual(after.packs, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: repository.appendingPathComponent(".git/packed-refs").path))
        // Packed today: the next idle sync waits a day (a new loose object is not enough)…
        try await a.capture(page: "page0", value: 99)
        _ = await a.synced()
        var quiet = await a.synced()
        let again = await a.fleet.upkeep(after: quiet, now: now.addingTimeInterval(3600))
        XCTAssertNil(again)
        // …and repacks a day later, each day's loose objects a pack of their own, until the packs reach their bound:
        // then all of them into one.
        var day = 1
        while try await a.fleet.objects().packs < FleetUpkeep.packsBound {
            let repacked = await a.fleet.upkeep(after: quiet, now: now.addingTimeInterval(Double(day) * 25 * 3600))
            let daily = try XCTUnwrap(repacked)
            XCTAssertEqual(daily.decision, .repack(.daily))
            XCTAssertEqual(daily.after?.loose, 0)
            day += 1
            try await a.capture(page: "page\(day % 3)", value: UInt16(100 + day))
            _ = await a.synced()
            quiet = await a.synced()
        }
        let gc = await a.fleet.upkeep(after: quiet, now: now.addingTimeInterval(Double(day) * 25 * 3600))
        let whole = try XCTUnwrap(gc)
        XCTAssertEqual(whole.decision, .gc(.packs))
        XCTAssertEqual(whole.after?.packs, 1)
        XCTAssertEqual(whole.after?.loose, 0)
        XCTAssertEqual(try HubRepository.git(["fsck", "--no-progress"], in: repository), "")
        // Everything is still there: a sync, and another host that joins.
        let afterPacking = await a.synced()
        XCTAssertEqual(afterPacking.result, .ok)
        let b = try await FleetHost("line-7", remote: hub.fileURL, in: dir)
        let into = await b.synced()
        XCTAssertEqual(into.templatesIn.count, 7 + day - 1)
        XCTAssertEqual(into.auditRecordsIn, 6)
    }

    func testTheAuditExportAppendsWhatFollowsTheLastLineOnceATornLineIncluded() async throws {
        let hub = try HubRepository()
        let a = try await FleetHost("line-1", remote: hub.fileURL, in: dir)
        let file = a.data.appendingPathComponent("fleet/audit/line-1.jsonl")
        for i in 0..<3 { try await a.audit.append(record("heating", i)) }
        let threeRecords = await a.synced()
        XCTAssertEqual(threeRecords.auditRecordsOut, 3)
        let first = try Data(contentsOf: file)
        let nothingNew = await a.synced()
        XCTAssertEqual(nothingNew.auditRecordsOut, 0, "nothing new: nothing appended")
        try await a.audit.append(record("heating", 3))
        let oneRecord = await a.synced()
        XCTAssertEqual(oneRecord.auditRecordsOut, 1)
        let second = try Data(contentsOf: file)
        XCTAssertEqual(second.prefix(first.count), first, "appended in place: what was exported stays byte for byte")

        // An append cut short by a crash leaves half a line (never committed): it is cut off, and the record it was
        // is exported again, whole, once.
        try await a.audit.append(record("heating", 4))
        var line = JSONWriter(capacity: 1024)
        record("heating", 4).write(to: &line)
        try (second + line.bytes.prefix(line.bytes.count / 2)).write(to: file)
        let afterTheTornLine = await a.synced()
        XCTAssertEqual(afterTheTornLine.auditRecordsOut, 1)
        let exported = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map {
            try APICoding.decoder().decode(AuditRecord.self, from: Data($0.utf8))
        }
        XCTAssertEqual(exported.map(\.templateVersion), [0, 1, 2, 3, 4])
        let committed = try HubRepository.git(["show", "main:audit/line-1.jsonl"], in: hub.path)
        XCTAssertEqual(committed, try String(contentsOf: file, encoding: .utf8))
    }
}
