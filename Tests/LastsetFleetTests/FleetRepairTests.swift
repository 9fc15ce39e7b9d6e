import Foundation
import LastsetCore
import LastsetEngine
import LastsetFleet
import TestSupport
import XCTest

/// `lastset fleet doctor` and `lastset fleet repair` against a real bare hub: the commit, file and rule of each
/// problem; a quarantine only of the branch that was checked; a re-clone that takes a sound hub and refuses one
/// holding a forged file in this host's namespace, putting the old repository back.
final class FleetRepairTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory(prefix: "fleet-repair")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    /// A clone of the hub by someone with write access to it, who commits `change` and pushes; returns the commit.
    private func intrude(_ hub: HubRepository, _ message: String, _ change: (URL) throws -> Void) throws -> String {
        let work = dir.appendingPathComponent("intruder-\(UUID().uuidString)")
        try HubRepository.git(["clone", "-q", hub.fileURL, work.path], in: dir)
        try change(work)
        try HubRepository.git(["add", "-A"], in: work)
        try HubRepository.git(["commit", "-q", "-m", message], in: work)
        try HubRepository.git(["push", "-q", "origin", "HEAD:main"], in: work)
        return try HubRepository.git(["rev-parse", "HEAD"], in: work).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Rewrites the only version file of `host` on the hub (a value edited).
    private func rewriteVersion(of host: String, in work: URL) throws {
        let folder = work.appendingPathComponent("templates/heating")
        let name = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.contains("@\(host)@") })
        let url = folder.appendingPathComponent(name)
        let text = try String(contentsOf: url, encoding: .utf8).replacingOccurrences(of: "\"0028\"", with: "\"0063\"")
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    func testDoctorNamesTheCommitFileAndRuleAndAQuarantineUnblocksThePush() async throws {
        let hub = try HubRepository()
        let a = try await FleetHost("line-1", remote: hub.fileURL, in: dir)
        let b = try await FleetHost("line-7", remote: hub.fileURL, in: dir)
        try await a.capture(value: 40)
        _ = await a.synced()
        _ = await b.synced()
        let got1 = await b.fleet.diagnose().verdict
        XCTAssertEqual(got1, .healthy)
        let good = try HubRepository.git(["rev-parse", "main"], in: hub.path).trimmingCharacters(in: .whitespacesAndNewlines)
        let bad = try intrude(hub, "tune heating") { try self.rewriteVersion(of: "line-1", in: $0) }

        try await b.capture(value: 7)
        let blocked = await b.fleet.sync()
        XCTAssertEqual(blocked.result, .refused)
        XCTAssertEqual(blocked.refused.map(\.rule), [.rewritten])
        XCTAssertFalse(try HubRepository.git(["ls-tree", "-r", "--name-only", "main"], in: hub.path).contains("@line-7@"))

        let diagnosis = await b.fleet.diagnose()
        XCTAssertEqual(diagnosis.verdict, .hubRefused)
        XCTAssertEqual(diagnosis.repairs, [.quarantine])
        XCTAssertEqual(diagnosis.hub.head, bad)
        XCTAssertEqual(diagnosis.hub.incoming, 1)
        XCTAssertEqual(diagnosis.repository.map(\.ok), [true, true, true, true], "\(diagnosis.repository)")
        XCTAssertEqual(diagnosis.problems.count, 1, "\(diagnosis.problems)")
        let problem = try XCTUnwrap(diagnosis.problems.first)
        XCTAssertEqual(problem.commit, bad)
        XCTAssertEqual(problem.commitSummary, "test: tune heating")
        XCTAssertTrue(problem.path.hasPrefix("templates/heating/v000001@line-1@"), problem.path)
        XCTAssertEqual(problem.rule, .rewritten)

        // Only the branch that was checked is quarantined: a head seen before is refused, nothing changes.
        let stale = await b.fleet.quarantine(reason: "intruder", expectedHead: good, who: "uid:0(root)")
        XCTAssertEqual(stale.result, .refused, stale.message)
        XCTAssertTrue(stale.message.contains("not \(good)"), stale.message)
        XCTAssertEqual(try hubRef("main", hub), bad)

        let done = await b.fleet.quarantine(reason: "intruder rewrote line-1's version", expectedHead: bad, who: "uid:0(root)")
        XCTAssertEqual(done.result, .done, done.message)
        let branch = try XCTUnwrap(done.quarantineBranch)
        XCTAssertTrue(branch.hasPrefix("lastset-quarantine/line-7-"), branch)
        XCTAssertEqual(try hubRef(branch, hub), bad)
        XCTAssertEqual(done.quarantined?.count, 1)
        XCTAssertEqual(done.problems.map(\.commit), [bad])
        XCTAssertEqual(try hubRef("main", hub), try HubRepository.git(["rev-parse", "HEAD"], in: b.data.appendingPathComponent("fleet")).trimmingCharacters(in: .whitespacesAndNewlines))

        // B's version went out with the branch.
        XCTAssertTrue(try HubRepository.git(["ls-tree", "-r", "--name-only", "main"], in: hub.path).contains("@line-7@"))
        let pushed = await b.synced()
        XCTAssertEqual(pushed.templatesOut, [])
        let got2 = await a.synced().templatesIn
        XCTAssertEqual(got2, ["heating/line-7-1"])
        let got3 = await b.fleet.diagnose().verdict
        XCTAssertEqual(got3, .healthy)
        let got4 = await a.fleet.diagnose().verdict
        XCTAssertEqual(got4, .healthy)
        // A second quarantine finds nothing to do.
        let again = await b.fleet.quarantine(reason: "again", expectedHead: nil, who: "uid:0(root)")
        XCTAssertEqual(again.result, .refused)
        XCTAssertTrue(again.message.contains("nothing to quarantine"), again.message)
        // Every attempt is audited.
        let repairs = try await b.audit.read(limit: 10).records.filter { $0.kind == .fleetRepair }
        XCTAssertEqual(repairs.map(\.result), [.refused, .succeeded, .refused], "\(repairs)")
        XCTAssertTrue(repairs[1].message?.hasSuffix(": intruder rewrote line-1's version") ?? false, "\(repairs[1])")
        XCTAssertEqual(repairs[1].who, "uid:0(root)")
    }

    func testARecloneReplacesABrokenRepositoryAndKeepsEveryVersion() async throws {
        let hub = try HubRepository()
        let a = try await FleetHost("line-1", remote: hub.fileURL, in: dir)
        let b = try await FleetHost("line-7", remote: hub.fileURL, in: dir)
        try await a.capture(value: 40)
        try await b.capture(value: 7)
        _ = await a.synced()
        _ = await b.synced()
        _ = await a.synced()
        try await a.capture(value: 41)  // committed here, not pushed yet
        // The repository loses its objects (a disk fault): every git call on it fails.
        let objects = a.data.appendingPathComponent("fleet/.git/objects")
        for name in try FileManager.default.contentsOfDirectory(atPath: objects.path) where name.count == 2 {
            try FileManager.default.removeItem(at: objects.appendingPathComponent(name))
        }
        let broken = await a.fleet.diagnose()
        XCTAssertEqual(broken.verdict, .repositoryBroken)
        XCTAssertEqual(broken.repairs, [.reclone], "\(broken)")
        XCTAssertEqual(broken.repository.first { $0.check == .objects }?.ok, false)

        let report = await a.fleet.reclone(reason: "disk fault", who: "uid:0(root)")
        XCTAssertEqual(report.result, .done, "\(report.message) \(report.problems)")
        XCTAssertEqual(report.sync?.result, .ok, report.sync?.message ?? "")
        XCTAssertEqual(report.sync?.templatesOut, ["heating/line-1-2"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: try XCTUnwrap(report.movedAside)))
        let got5 = await a.fleet.diagnose().verdict
        XCTAssertEqual(got5, .healthy)
        let ids = try await a.ids()
        XCTAssertEqual(ids, ["line-1-2", "line-7-1", "line-1-1"])
        // Every version once on the hub; the other host carries on.
        let files = try HubRepository.git(["ls-tree", "-r", "--name-only", "main", "templates"], in: hub.path)
        XCTAssertEqual(files.split(separator: "\n").count, 3, files)
        let got6 = await b.synced().templatesIn
        XCTAssertEqual(got6, ["heating/line-1-2"])
        let audited = try await a.audit.read(limit: 5).records.first { $0.kind == .fleetRepair }
        XCTAssertEqual(audited?.result, .succeeded)
    }

    func testARecloneRefusesAHubWithAForgedFileInThisHostsNamespaceAndPutsTheOldRepositoryBack() async throws {
        let hub = try HubRepository()
        let a = try await FleetHost("line-1", remote: hub.fileURL, in: dir)
        try await a.capture(value: 40)
        _ = await a.synced()
        let head = try HubRepository.git(["rev-parse", "HEAD"], in: a.data.appendingPathComponent("fleet"))
        let forged = try intrude(hub, "tune heating") { try self.rewriteVersion(of: "line-1", in: $0) }

        let report = await a.fleet.reclone(reason: "try", who: "uid:0(root)")
        XCTAssertEqual(report.result, .refused, report.message)
        XCTAssertEqual(report.problems.count, 1, "\(report.problems)")
        XCTAssertEqual(report.problems.first?.commit, forged)
        XCTAssertEqual(report.problems.first?.rule, .ownNamespace)
        XCTAssertTrue(report.problems.first?.reason.contains("its archive") ?? false, "\(report.problems)")
        XCTAssertNil(report.movedAside)
        XCTAssertEqual(try HubRepository.git(["rev-parse", "HEAD"], in: a.data.appendingPathComponent("fleet")), head)
        let siblings = try FileManager.default.contentsOfDirectory(atPath: a.data.path)
        XCTAssertFalse(siblings.contains { $0.hasPrefix("fleet.aside-") }, "\(siblings)")
    }

    private func hubRef(_ name: String, _ hub: HubRepository) throws -> String {
        try HubRepository.git(["rev-parse", name], in: hub.path).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
