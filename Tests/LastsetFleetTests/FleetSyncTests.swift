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

    /// Deletes a version as `lastset delete` does (the removal and its audit record in one commit), then commits
    /// its fleet record.
    func delete(_ ref: TemplateVersionRef, page: String = "heating", reason: String) async throws {
        let version = try await archive.resolveVersion(pageId: page, ref)
        let record = AuditRecord(
            time: Date(), kind: .delete, who: "uid:1000(op)", pageId: page, device: "-", endpoint: "-", unit: 0, identity: [],
            templateVersion: version.number, pageHash: "", result: .deleted, message: "deleted version \(version.id): \(reason)",
            registers: [], job: UUID().uuidString, templateVersionId: version.id)
        _ = try await archive.remove(pageId: page, version: ref) { _ in record }
        let warning = await fleet.publishRecords()
        XCTAssertNil(warning)
    }

    /// The ids of a page's versions here, newest first.
    func ids(page: String = "heating") async throws -> [String] {
        try await archive.list(pageId: page).map(\.id)
    }

    /// Syncs and checks the sync ended ok.
    func synced(file: StaticString = #filePath, line: UInt = #line) async -> SyncReport {
        let report = await fleet.sync()
        XCTAssertEqual(report.result, .ok, "\(name): \(report.message ?? "") \(report.refused)", file: file, line: line)
        return report
    }

    /// The same host after a restart: its data directory and repository opened again.
    func reopened(remote: String, in dir: URL) async throws -> FleetHost {
        try await FleetHost(name, remote: remote, in: dir)
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

    /// A delete travels as the version's tombstone (who, when, why) in a commit of its own: every host removes the
    /// version and keeps its deleted marker, so no later sync, restart or new host brings it back, and no file of
    /// another host is rewritten or removed on the hub.
    func testADeleteHoldsOnEveryHostAcrossSyncsRestartsAndNewHosts() async throws {
        let hub = try HubRepository()
        var a = try await FleetHost("line-a", remote: hub.fileURL, in: dir)
        var b = try await FleetHost("line-b", remote: hub.fileURL, in: dir)
        var c = try await FleetHost("line-c", remote: hub.fileURL, in: dir)
        try await a.capture(value: 10)
        try await a.capture(value: 20)
        for host in [a, b, c] { _ = await host.synced() }
        let before = try await c.ids()
        XCTAssertEqual(before, ["line-a-2", "line-a-1"])

        // line-b deletes line-a's version 2: a tombstone of line-b's, never a change to line-a's file.
        try await b.delete(.id(host: "line-a", number: 2), reason: "setpoint too high for the new burner")
        let out = await b.fleet.sync()
        XCTAssertEqual(out.result, .ok, out.message ?? "")
        let tombstone = try HubRepository.git(["show", "main:history/heating/delete@line-a-2@line-b.json"], in: hub.path)
        XCTAssertTrue(tombstone.contains("\"who\":\"uid:1000(op)\""), tombstone)
        XCTAssertTrue(tombstone.contains("setpoint too high for the new burner"), tombstone)
        let subject = try HubRepository.git(["log", "-1", "--format=%an|%s", "main", "--", "history"], in: hub.path)
        XCTAssertTrue(subject.hasPrefix("uid:1000(op) on line-b|delete heating line-a-2"), subject)

        for host in [a, c] {
            let report = await host.fleet.sync()
            XCTAssertEqual(report.result, .ok, report.message ?? "")
            XCTAssertEqual(report.deleted?.count, 1, "\(host.name): \(String(describing: report.deleted))")
            XCTAssertTrue(report.deleted?.first?.hasPrefix("heating/line-a-2 by uid:1000(op) on line-b at ") ?? false)
            let left = try await host.ids()
            XCTAssertEqual(left, ["line-a-1"], host.name)
            let last = try await host.audit.read(limit: 1).records.last
            let record = try XCTUnwrap(last)
            XCTAssertEqual(record.kind, .delete)
            XCTAssertEqual(record.who, "uid:1000(op) on line-b")
            XCTAssertTrue(record.message?.contains("setpoint too high") ?? false, record.message ?? "")
        }
        // More syncs, then every host restarted: the delete holds; line-a never numbers a version 2 again.
        for _ in 0..<2 { for host in [a, b, c] { _ = await host.synced() } }
        a = try await a.reopened(remote: hub.fileURL, in: dir)
        b = try await b.reopened(remote: hub.fileURL, in: dir)
        c = try await c.reopened(remote: hub.fileURL, in: dir)
        let third = try await a.capture(value: 30)
        XCTAssertEqual(third.versionId.id, "line-a-3")
        for host in [a, b, c, a] { _ = await host.synced() }
        for host in [a, b, c] {
            let ids = try await host.ids()
            XCTAssertEqual(ids, ["line-a-3", "line-a-1"], host.name)
        }
        // A host that joins later gets the version's file and its tombstone in one fetch: never archives it.
        let d = try await FleetHost("line-d", remote: hub.fileURL, in: dir)
        let joined = await d.fleet.sync()
        XCTAssertEqual(joined.result, .ok, joined.message ?? "")
        let joinedIds = try await d.ids()
        XCTAssertEqual(joinedIds, ["line-a-3", "line-a-1"])
        // The hub keeps every version file; nothing was ever removed from it.
        let removed = try HubRepository.git(["log", "--diff-filter=DM", "--name-only", "--format=", "main"], in: hub.path)
        XCTAssertEqual(removed.trimmingCharacters(in: .whitespacesAndNewlines), "")
        let files = try HubRepository.git(["ls-tree", "-r", "--name-only", "main", "templates"], in: hub.path)
        XCTAssertEqual(files.split(separator: "\n").count, 3, files)
    }

    /// A promote travels as a record of its own (who, when, why): other hosts report it with the version.
    func testAPromoteTravelsAsARecordOfItsOwn() async throws {
        let hub = try HubRepository()
        let a = try await FleetHost("line-a", remote: hub.fileURL, in: dir)
        let b = try await FleetHost("line-b", remote: hub.fileURL, in: dir)
        let first = try await a.capture(value: 10)
        try await a.capture(value: 20)
        var copy = first
        copy.provenance = "promoted from version line-a-1"
        let stored = try await a.archive.store(copy) { t in
            AuditRecord(
                time: Date(), kind: .promote, who: "token:ops", pageId: "heating", device: "press-1", endpoint: "-", unit: 1,
                identity: [], templateVersion: t.version, pageHash: t.pageHash, result: .archived,
                message: "promoted version line-a-1 as version \(t.versionId.id): back to the summer values", registers: [],
                job: UUID().uuidString, templateVersionId: t.versionId.id)
        }
        let warning = await a.fleet.record(stored, kind: .promote, who: "token:ops")
        XCTAssertNil(warning)
        _ = await a.synced()
        let report = await b.fleet.sync()
        XCTAssertEqual(report.result, .ok, report.message ?? "")
        XCTAssertEqual(report.templatesIn.count, 3)
        XCTAssertEqual(report.promoted?.count, 1)
        XCTAssertTrue(
            report.promoted?.first?.hasPrefix("heating/line-a-3 by token:ops on line-a at ") ?? false,
            "\(String(describing: report.promoted))")
        XCTAssertTrue(report.promoted?.first?.hasSuffix("back to the summer values") ?? false)
        let latest = try await b.archive.load(pageId: "heating")
        XCTAssertEqual(latest.versionId.id, "line-a-3")
    }

    /// A record rewritten on the hub (a tombstone edited to name another version) is refused with the fetch.
    func testARecordWhoseContentIsNotItsNameIsRefused() async throws {
        let hub = try HubRepository()
        let a = try await FleetHost("line-a", remote: hub.fileURL, in: dir)
        let b = try await FleetHost("line-b", remote: hub.fileURL, in: dir)
        try await a.capture(value: 10)
        try await a.capture(value: 20)
        _ = await a.synced()
        _ = await b.synced()
        // Someone with write access to the hub plants a tombstone of line-a-1 under a name that says line-a-2.
        let work = dir.appendingPathComponent("intruder")
        try HubRepository.git(["clone", "-q", hub.fileURL, work.path], in: dir)
        let record = FleetRecord(
            kind: .delete, pageId: "heating", versionId: "line-a-1", host: "line-z", who: "uid:0", at: Date(), reason: "x")
        let folder = work.appendingPathComponent("history/heating")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try record.encoded().write(to: folder.appendingPathComponent("delete@line-a-2@line-z.json"))
        try HubRepository.git(["add", "-A"], in: work)
        try HubRepository.git(["commit", "-q", "-m", "forged"], in: work)
        try HubRepository.git(["push", "-q", "origin", "HEAD:main"], in: work)
        let report = await b.fleet.sync()
        XCTAssertEqual(report.result, .refused)
        XCTAssertEqual(report.refused.map(\.path), ["history/heating/delete@line-a-2@line-z.json"])
        XCTAssertTrue(report.refused.first?.reason.contains("not its name") ?? false, "\(report.refused)")
        let kept = try await b.ids()
        XCTAssertEqual(kept, ["line-a-2", "line-a-1"])
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
        let a = try await FleetHost("line-1", remote: "git://127.0.0.1:\(try TestPorts.freeLoopbackPort())/hub.git", in: dir)
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

    /// Each audit export's commit carries the head of the host's audit chain; a log rewritten afterwards with every
    /// hash recomputed (so it verifies on its own) no longer holds what was published.
    func testTheAuditChainHeadGoesIntoTheFleetAndCatchesARewrittenLog() async throws {
        let hub = try HubRepository()
        let a = try await FleetHost("line-1", remote: hub.fileURL, in: dir)
        func record(_ version: Int) -> AuditRecord {
            AuditRecord(
                time: Date(), kind: .capture, who: "uid:1000", pageId: "heating", device: "press-1",
                endpoint: "tcp://127.0.0.1:1", unit: 1, identity: [], templateVersion: version, pageHash: "sha256:abc",
                result: .archived, message: nil, registers: [])
        }
        try await a.audit.append(record(1))
        _ = await a.synced()
        try await a.audit.append(record(2))
        _ = await a.synced()
        let published = await a.fleet.publishedAuditHeads()
        XCTAssertEqual(published.count, 2)
        let head = try await a.audit.chainHead()
        XCTAssertEqual(published.last, head)
        let intact = try await a.audit.verifyChain(published: published)
        XCTAssertEqual(intact.findings, [])

        // Rewrite record 1 and recompute the whole chain, as someone with the database file could.
        let database = a.audit.database
        try await database.write { c in
            try c.run("UPDATE audit_record SET record = replace(record, 'uid:1000', 'uid:2000') WHERE seq = 1")
            var prev = AuditChain.genesis
            var rows: [(Int64, String)] = []
            try c.rows("SELECT seq, record FROM audit_record ORDER BY seq") { row in
                rows.append((row.int64(0), row.text(1) ?? ""))
                return true
            }
            for (seq, text) in rows {
                let hash = AuditChain.link(previous: prev, record: text.utf8)
                try c.run("UPDATE audit_record SET prev = ?, hash = ? WHERE seq = ?", .text(prev), .text(hash), .integer(seq))
                try c.run("UPDATE audit_chain SET head_seq = ?, head_hash = ?", .integer(seq), .text(hash))
                prev = hash
            }
        }
        let alone = try await a.audit.verifyChain()
        XCTAssertEqual(alone.findings.map(\.kind), ["columnDiffers"], "only the who column betrays it on its own")
        let checked = try await a.audit.verifyChain(published: published)
        XCTAssertEqual(Set(checked.findings.map(\.kind)), ["columnDiffers", "differsFromPublished"])
        XCTAssertEqual(checked.findings.filter { $0.kind == "differsFromPublished" }.map(\.seq), published.map(\.seq))
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
