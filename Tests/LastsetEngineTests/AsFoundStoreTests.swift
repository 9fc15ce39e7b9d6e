import Foundation
import LastsetCore
import LastsetStore
import TestSupport
import XCTest

@testable import LastsetEngine

/// The as-found history in `lastset.db` (`AsFoundStore`): numbered per device and page, pruned to `keep`, each record
/// committed with its audit record, a failing attempt recorded with its audit record, and neither ever a template
/// version.
final class AsFoundStoreTests: XCTestCase {
    private var dir: URL!
    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    override func setUp() async throws {
        dir = try TestPaths.temporaryDirectory(prefix: "asfound")
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func record(_ device: String, _ page: String, value: UInt16, at seconds: Double) -> AsFoundRecord {
        AsFoundRecord(
            device: device, pageId: page, number: 0, takenAt: t0.addingTimeInterval(seconds), who: "policy:backup",
            job: "J\(seconds)", pageHash: "H", identity: [],
            values: [
                RecordedValue(
                    registerId: "\(page).a", address: 1, valueData: String(format: "%04X", value), value: .unsigned(UInt64(value)))
            ])
    }

    private static func audit(_ r: AsFoundRecord) -> AuditRecord {
        AuditRecord(
            time: r.takenAt, kind: .backup, who: r.who, pageId: r.pageId, device: r.device, endpoint: "tcp://127.0.0.1:1",
            unit: 1, identity: [], templateVersion: nil, pageHash: r.pageHash, result: .archived,
            message: AsFoundComparison.summary(r), registers: [], job: r.job)
    }

    func testRecordsAreNumberedPerDevicePagePrunedAndAuditedInOneCommit() async throws {
        let database = try RecordStore.open(dataDirectory: dir)
        let store = AsFoundStore(database: database)
        for i in 1...5 {
            let stored = try await store.store(record("press", "heating", value: UInt16(i), at: Double(i)), keep: 3) { Self.audit($0) }
            XCTAssertEqual(stored.number, i)
        }
        _ = try await store.store(record("press", "motion", value: 9, at: 9), keep: 3) { Self.audit($0) }
        _ = try await store.store(record("oven", "heating", value: 9, at: 10), keep: 3) { Self.audit($0) }

        let heating = try await store.list(device: "press", pageId: "heating")
        XCTAssertEqual(heating.map(\.number), [5, 4, 3])
        let all = try await store.list(device: "press")
        XCTAssertEqual(all.map(\.pageId), ["motion", "heating", "heating", "heating"])
        XCTAssertEqual(all.first?.values, [], "a listing leaves the values out")
        let latest = try await store.latest(device: "press", pageId: "heating")
        XCTAssertEqual(latest?.values.first?.valueData, "0005")
        let pruned = try await store.record(device: "press", pageId: "heating", number: 2)
        XCTAssertNil(pruned, "pruned past keep")
        let oven = try await store.record(device: "oven", pageId: "heating", number: 1)
        XCTAssertEqual(oven?.number, 1)

        let audit = try await AuditLog(database: database).read(limit: 100).records
        XCTAssertEqual(audit.filter { $0.kind == .backup }.count, 7, "every record stored has its audit record, pruned or not")
        let versions = try await TemplateArchive(database: database).list(pageId: "heating")
        XCTAssertEqual(versions.count, 0, "an as-found record is never a template version")
        database.close()
    }

    func testAnAttemptIsKeptAcrossAnOpenAndAFailureIsAuditedWithIt() async throws {
        var database = try RecordStore.open(dataDirectory: dir)
        var store = AsFoundStore(database: database)
        var failed = Self.audit(record("press", "heating", value: 1, at: 1))
        failed.result = .failed
        failed.message = "scheduled backup failed: heating: timeout"
        try await store.attempted(device: "press", at: t0, failure: "heating: timeout", audit: failed)
        try await store.attempted(device: "oven", at: t0.addingTimeInterval(5), failure: nil)
        database.close()

        database = try RecordStore.open(dataDirectory: dir)
        store = AsFoundStore(database: database)
        let attempts = try store.attempts()
        XCTAssertEqual(attempts["press"]?.at, t0)
        XCTAssertEqual(attempts["press"]?.failure, "heating: timeout")
        XCTAssertEqual(attempts["oven"]?.at, t0.addingTimeInterval(5))
        XCTAssertNil(attempts["oven"]?.failure)
        let press = try await store.attempt(device: "press")
        XCTAssertEqual(press?.at, t0)
        XCTAssertEqual(press?.failure, "heating: timeout")
        let never = try await store.attempt(device: "mill")
        XCTAssertNil(never)
        let audit = try await AuditLog(database: database).read(limit: 10).records
        XCTAssertEqual(audit.map(\.result), [.failed])
        database.close()
    }
}
