import Foundation
import LastsetCore
import LastsetEngine
import LastsetFleet
import TestSupport
import XCTest

/// Page definitions through a real hub: published with the versions captured against them, each once; checked when
/// they come in (a definition whose content is not its name refuses the fetch); and what differs, in health.
final class FleetDefinitionSyncTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory(prefix: "fleet-pages")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    /// The page of `FleetSyncTests.template`, with `limit` as r1's maximum.
    private static func page(limit: Int) -> CompiledPage {
        CompiledPage(
            PageDefinition(
                id: "heating",
                registers: (0..<3).map {
                    RegisterDefinition(
                        registerId: "r\($0)", address: 100 + $0, type: .u16, max: $0 == 1 ? ExactNumber(Int64(limit)) : nil)
                }))
    }

    /// Archives a capture of `page` and commits it, as a capture does.
    private func capture(_ host: FleetHost, _ page: CompiledPage, value: UInt16) async throws {
        var t = FleetSyncTests.template(page: "heating", value: value)
        t.pageHash = page.hash
        let stored = try await host.archive.store(t)
        let warning = await host.fleet.record(stored, kind: .capture, who: "uid:1000")
        XCTAssertNil(warning)
    }

    func testADefinitionTravelsOnceWithItsVersionsAndWhatDiffersShowsInHealth() async throws {
        let hub = try HubRepository()
        let a = try await FleetHost("line-1", remote: hub.fileURL, in: dir)
        let b = try await FleetHost("line-7", remote: hub.fileURL, in: dir)
        let theirs = Self.page(limit: 60)
        a.fleet.setPages([theirs])
        b.fleet.setPages([Self.page(limit: 40)])
        try await capture(a, theirs, value: 4)
        try await capture(a, theirs, value: 5)
        _ = await a.synced()
        let files = try HubRepository.git(["ls-tree", "-r", "--name-only", "main", "pages"], in: hub.path)
        XCTAssertEqual(files, "pages/heating/\(theirs.hash.dropFirst(7))@line-1.json\n", "published once, with the first version")
        let into = await b.synced()
        XCTAssertEqual(into.templatesIn.count, 2)
        await b.fleet.checkPages()
        let difference = try XCTUnwrap(b.fleet.status().differingPages?.first)
        XCTAssertEqual(difference.version, "line-1-2")
        XCTAssertEqual(difference.fleetLatest, true)
        XCTAssertEqual(difference.registers?.map(\.description), ["r1: max 40 → 60"])
        XCTAssertFalse(difference.applicable)
    }

    func testADefinitionWhoseContentIsNotItsNameRefusesTheFetch() async throws {
        let hub = try HubRepository()
        let a = try await FleetHost("line-1", remote: hub.fileURL, in: dir)
        let b = try await FleetHost("line-7", remote: hub.fileURL, in: dir)
        a.fleet.setPages([Self.page(limit: 60)])
        try await capture(a, Self.page(limit: 60), value: 4)
        _ = await a.synced()
        // Someone with write access to the hub adds a definition under line-1's name whose content hashes otherwise.
        let work = dir.appendingPathComponent("intruder")
        try HubRepository.git(["clone", "-q", hub.fileURL, work.path], in: dir)
        let other = Self.page(limit: 90)
        let real = try XCTUnwrap(FleetPageDefinition(other.definition, pageHash: other.hash, host: "line-1"))
        let forgedName = FleetPageDefinition.fileName(pageHash: Self.page(limit: 70).hash, host: "line-1")
        try real.encoded().write(to: work.appendingPathComponent("pages/heating/\(forgedName)"))
        try HubRepository.git(["add", "-A"], in: work)
        try HubRepository.git(["commit", "-q", "-m", "forged definition"], in: work)
        try HubRepository.git(["push", "-q", "origin", "HEAD:main"], in: work)
        let report = await b.fleet.sync()
        XCTAssertEqual(report.result, .refused)
        XCTAssertEqual(report.refused.map(\.rule), [.nameMatchesContent])
        XCTAssertEqual(report.refused.first?.path, "pages/heating/\(forgedName)")
    }
}
