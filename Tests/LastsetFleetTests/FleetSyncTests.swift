import Foundation
import LastsetCore
import LastsetEngine
import LastsetFleet
import TestSupport
import XCTest

/// One host of a test fleet: its own data directory, archive, audit log and fleet repository.
struct FleetHost {
    let name: String
    let data: URL
    let archive: TemplateArchive
    let audit: AuditLog
    let fleet: Fleet

    init(_ name: String, remote: String, in dir: URL, configure: (inout FleetConfig) -> Void = { _ in }) async throws {
        self.name = name
        data = dir.appendingPathComponent(name)
        let database = try RecordStore.open(dataDirectory: data)
        archive = try TemplateArchive(database: database, host: name)
        audit = AuditLog(database: database)
        var config = FleetConfig(remote: remote, interval: "0s", host: name)
        configure(&config)
        fleet = Fleet(settings: FleetSettings(config), dataDirectory: data, archive: archive, audit: audit)
        try await fleet.open()
    }

    /// Archives a template as a capture would, and commits it.
    @discardableResult
    func capture(page: String = "heating", value: UInt16) async throws -> Template {
        let stored = try await archive.store(FleetSyncTests.template(page: page, value: value))
        let warning = await fleet.record(stored, kind: .capture, who: "uid:1000")
        XCTAssertNil(warning)
        return stored
    }
}

final class FleetSyncTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory(prefix: "fleet")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    static func template(page: String, value: UInt16) -> Template {
        Template(
            pageId: page, pageHash: "sha256:abc", version: 0, capturedAt: Date(), capturedBy: "uid:1000",
            source: TemplateSource(deviceId: "press-1", endpoint: "tcp://127.0.0.1:15020", unit: 1, identity: []),
            entries: (0..<3).map {
                TemplateEntry(
                    registerId: "r\($0)", address: 100 + $0, length: 1, valueData: [value &+ UInt16($0)].bigEndianBytes.hexString,
                    value: .unsigned(UInt64(value) + UInt64($0)), lastDate: Date())
            },
            skipped: [])
    }

    func testCaptureOnOneHostReachesAnotherThroughAFileHub() async throws {
        let hub = try HubRepository()
        let a = try await FleetHost("line-1", remote: hub.fileURL, in: dir)
        let b = try await FleetHost("line-7", remote: hub.fileURL, in: dir)
        let stored = try await a.capture(value: 40)
        XCTAssertEqual(stored.versionId.id, "line-1-1")

        let out = await a.fleet.sync()
        XCTAssertEqual(out.result, .ok, out.message ?? "")
        XCTAssertEqual(out.templatesOut, ["heating/line-1-1"])
        XCTAssertGreaterThanOrEqual(out.commitsOut, 1)
        XCTAssertEqual(out.ahead, 0)

        let into = await b.fleet.sync()
        XCTAssertEqual(into.result, .ok, into.message ?? "")
        XCTAssertEqual(into.templatesIn, ["heating/line-1-1"])
        let copy = try await b.archive.load(pageId: "heating")
        XCTAssertEqual(copy, stored)
        // The id names the same template on both hosts; a plain number is each host's own.
        let byId = try await b.archive.load(pageId: "heating", version: .id(host: "line-1", number: 1))
        XCTAssertEqual(byId, stored)
        do {
            _ = try await b.archive.load(pageId: "heating", version: 1)
            XCTFail("line-7 has no version 1 of its own")
        } catch {
            XCTAssertEqual(error, .notFound(pageId: "heating", version: "1"))
        }
        // The commit is authored by the principal on the host that captured.
        let log = try HubRepository.git(["log", "--format=%an <%ae>|%s", "main"], in: hub.path)
        XCTAssertTrue(log.contains("uid:1000 on line-1 <uid-1000@line-1>|capture heating line-1-1"), log)
    }

    /// A kill during a write into the repository (Foundation's atomic write: a `.dat.nosync…` temporary
    /// beside the version file) left debris that the next catch-up's `git add -- templates` committed and
    /// pushed: every other host then refused the hub's commits ("not the name of a fleet template version")
    /// and stopped adopting anything. Found by the chaos harness (seed 5, step 12).
    func testDebrisOfAKilledWriteIsNeverCommittedByACatchUp() async throws {
        let hub = try HubRepository()
        let a = try await FleetHost("line-1", remote: hub.fileURL, in: dir)
        let b = try await FleetHost("line-7", remote: hub.fileURL, in: dir)
        // Archived, not committed (killed before `record`), and a torn write's temporary left behind.
        _ = try await a.archive.store(FleetSyncTests.template(page: "heating", value: 40))
        let debris = a.fleet.tree.appendingPathComponent("templates/heating/.dat.nosync5A6C.pqllks")
        try FileManager.default.createDirectory(at: debris.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("half a version".utf8).write(to: debris)

        let out = await a.fleet.sync()
        XCTAssertEqual(out.result, .ok, out.message ?? "")
        XCTAssertEqual(out.templatesOut, ["heating/line-1-1"])
        let files = try HubRepository.git(["ls-tree", "-r", "--name-only", "main"], in: hub.path)
        XCTAssertFalse(files.contains(".dat.nosync"), files)

        let into = await b.fleet.sync()
        XCTAssertEqual(into.result, .ok, into.message ?? "")
        XCTAssertEqual(into.templatesIn, ["heating/line-1-1"])
    }

    func testVersionsCapturedWhileApartAreAllKeptAndLatestIsTheSameEverywhere() async throws {
        let hub = try HubRepository()
        let a = try await FleetHost("line-1", remote: hub.fileURL, in: dir)
        let b = try await FleetHost("line-7", remote: hub.fileURL, in: dir)
        // Both capture the same page before either syncs: both are version 1 of their host.
        let fromA = try await a.capture(value: 10)
        let fromB = try await b.capture(value: 20)
        XCTAssertEqual([fromA.version, fromB.version], [1, 1])
        let first = await a.fleet.sync()
        XCTAssertEqual(first.result, .ok, first.message ?? "")
        // B's push is rejected at first (A pushed meanwhile); the same sync fetches, merges, pushes.
        let second = await b.fleet.sync()
        XCTAssertEqual(second.result, .ok, second.message ?? "")
        XCTAssertEqual(second.templatesIn, ["heating/line-1-1"])
        XCTAssertEqual(second.templatesOut, ["heating/line-7-1"])
        let third = await a.fleet.sync()
        XCTAssertEqual(third.result, .ok, third.message ?? "")
        XCTAssertEqual(third.templatesIn, ["heating/line-7-1"])
        for host in [a, b] {
            let ids = try await host.archive.list(pageId: "heating").map(\.id)
            XCTAssertEqual(ids, ["line-7-1", "line-1-1"], host.name)
            let latest = try await host.archive.load(pageId: "heating")
            XCTAssertEqual(latest, fromB, host.name)
        }
        let hubFiles = try HubRepository.git(["ls-tree", "-r", "--name-only", "main", "templates"], in: hub.path)
        XCTAssertEqual(hubFiles.split(separator: "\n").count, 2, hubFiles)
        XCTAssertEqual(third.ahead, 0)
        XCTAssertEqual(third.behind, 0)
    }

    func testATemplateWhoseChecksumFailsOnTheHubIsRefusedAndNotUsed() async throws {
        let hub = try HubRepository()
        let a = try await FleetHost("line-1", remote: hub.fileURL, in: dir)
        let b = try await FleetHost("line-7", remote: hub.fileURL, in: dir)
        try await a.capture(value: 40)
        _ = await a.fleet.sync()
        // Someone with write access to the hub adds a version of line-1 whose value was edited.
        let work = dir.appendingPathComponent("intruder")
        try HubRepository.git(["clone", "-q", hub.fileURL, work.path], in: dir)
        let original = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("templates/heating").path).first)
        var text = try String(contentsOf: work.appendingPathComponent("templates/heating/\(original)"), encoding: .utf8)
        text = text.replacingOccurrences(of: "\"0028\"", with: "\"0063\"")
        let forged = original.replacingOccurrences(of: "v000001@", with: "v000002@")
        text = text.replacingOccurrences(of: "\"version\":1", with: "\"version\":2")
        try text.write(to: work.appendingPathComponent("templates/heating/\(forged)"), atomically: true, encoding: .utf8)
        try HubRepository.git(["add", "-A"], in: work)
        try HubRepository.git(["commit", "-q", "-m", "tampered"], in: work)
        try HubRepository.git(["push", "-q", "origin", "HEAD:main"], in: work)

        let report = await b.fleet.sync()
        XCTAssertEqual(report.result, .refused)
        XCTAssertEqual(report.refused.count, 1, "\(report.refused)")
        XCTAssertTrue(report.refused.first?.reason.contains("checksum mismatch") ?? false, "\(report.refused)")
        XCTAssertEqual(report.templatesIn, [])
        // Nothing of that fetch is merged: not even the good version 1.
        do {
            _ = try await b.archive.load(pageId: "heating")
            XCTFail("a template of a refused fetch was archived")
        } catch {
            XCTAssertEqual(error, .notFound(pageId: "heating", version: nil))
        }
        let health = b.fleet.status()
        XCTAssertTrue(health.failing)
        XCTAssertEqual(health.lastSync?.result, .refused)
    }

    func testHubUnreachableKeepsLocalWorkAndSaysSo() async throws {
        let a = try await FleetHost("line-1", remote: "git://127.0.0.1:\(try HubRepository.freePort())/hub.git", in: dir)
        let stored = try await a.capture(value: 5)
        let report = await a.fleet.sync()
        XCTAssertEqual(report.result, .offline)
        XCTAssertTrue(report.message?.contains("not reachable") ?? false, report.message ?? "")
        XCTAssertEqual(report.ahead, 1)
        let local = try await a.archive.load(pageId: "heating")
        XCTAssertEqual(local, stored)
        let warning = await a.fleet.refreshBeforeReplay()
        XCTAssertTrue(warning?.contains("replayed the template this host already has") ?? false, warning ?? "")
        XCTAssertTrue(a.fleet.status().failing)
    }

    func testAuditRecordsOfEveryHostReachTheHub() async throws {
        let hub = try HubRepository()
        let a = try await FleetHost("line-1", remote: hub.fileURL, in: dir)
        let b = try await FleetHost("line-7", remote: hub.fileURL, in: dir)
        func record(_ kind: AuditKind, _ page: String) -> AuditRecord {
            AuditRecord(
                time: Date(), kind: kind, who: "uid:1000", pageId: page, device: "press-1", endpoint: "tcp://127.0.0.1:1",
                unit: 1,
                identity: [], templateVersion: 1, pageHash: "sha256:abc", result: .archived, message: nil, registers: [])
        }
        try await a.audit.append(record(.capture, "heating"))
        try await a.audit.append(record(.replay, "heating"))
        let first = await a.fleet.sync()
        XCTAssertEqual(first.auditRecordsOut, 2)
        try await a.audit.append(record(.replay, "cooling"))
        let second = await a.fleet.sync()
        XCTAssertEqual(second.auditRecordsOut, 1, "only the new record is exported")
        let into = await b.fleet.sync()
        XCTAssertEqual(into.result, .ok, into.message ?? "")
        XCTAssertEqual(into.auditRecordsIn, 3)
        let others = await b.fleet.otherHostsAudit()
        XCTAssertEqual(others.map(\.host), ["line-1"])
        XCTAssertEqual(others.first?.records.map(\.pageId), ["heating", "heating", "cooling"])
    }
}
