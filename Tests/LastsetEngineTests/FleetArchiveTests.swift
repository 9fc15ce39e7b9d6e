import Foundation
import LastsetCore
import LastsetEngine
import TestSupport
import XCTest

/// The archive's fleet naming: host-qualified ids, the legacy migration, adoption of fetched files.
final class FleetArchiveTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory(prefix: "fleet-archive")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    private func template(value: UInt16) -> Template {
        Template(
            pageId: "heating", pageHash: "sha256:abc", version: 0, capturedAt: Date(), capturedBy: "uid:0",
            source: TemplateSource(deviceId: "press-1", endpoint: "tcp://127.0.0.1:15020", unit: 1, identity: []),
            entries: [
                TemplateEntry(
                    registerId: "r0", address: 100, length: 1, valueData: [value].bigEndianBytes.hexString,
                    value: .unsigned(UInt64(value)), lastDate: Date())
            ], skipped: [])
    }

    func testVersionsMadeBeforeTheFleetKeepTheirNumberUnderThisHost() async throws {
        let database = try RecordStore.open(dataDirectory: dir)
        let plain = try TemplateArchive(database: database)
        let v1 = try await plain.store(template(value: 1))
        let v2 = try await plain.store(template(value: 2))
        XCTAssertEqual([v1.versionId.id, v2.versionId.id], ["1", "2"])

        _ = try await plain.remove(pageId: "heating", version: 2)
        let v2again = try await plain.store(template(value: 2))
        XCTAssertEqual(v2again.version, 3, "a deleted number is never given again")
        let fleet = try TemplateArchive(database: database, host: "line-1")
        let names = try await fleet.fileNames(pageId: "heating", host: "line-1")
        XCTAssertFalse(names.contains("v000001.json"), "\(names)")
        XCTAssertEqual(names.filter { $0.hasPrefix("v000001@line-1@") }.count, 1, "\(names)")
        // `--version 1` still names the same template; so does its fleet id.
        let one = try await fleet.load(pageId: "heating", version: 1)
        XCTAssertEqual(one.entries, v1.entries)
        XCTAssertEqual(one.versionId.id, "line-1-1")
        let byId = try await fleet.load(pageId: "heating", version: .id(host: "line-1", number: 3))
        XCTAssertEqual(byId.entries, v2again.entries)
        let got1 = try await fleet.load(pageId: "heating").entries
        XCTAssertEqual(got1, v2again.entries)
        let v4 = try await fleet.store(template(value: 4))
        XCTAssertEqual(v4.versionId.id, "line-1-4", "the deleted marker of 2 came into the host's namespace too")
        let got2 = try await fleet.list(pageId: "heating").map(\.id)
        XCTAssertEqual(got2, ["line-1-4", "line-1-3", "line-1-1"])
    }

    func testAdoptionChecksTheNameAndNeverLetsAnIdChangeMeaning() async throws {
        let other = try TemplateArchive(database: RecordStore.open(dataDirectory: dir.appendingPathComponent("b")), host: "line-7")
        let theirs = try await other.store(template(value: 7))
        let data = try await other.exportData(pageId: "heating")
        let name = theirs.versionId.fileName

        let mine = try TemplateArchive(database: RecordStore.open(dataDirectory: dir.appendingPathComponent("a")), host: "line-1")
        let got3 = try await mine.adopt(data, fileName: name, pageId: "heating")
        XCTAssertEqual(got3, .added(theirs.versionId))
        let got4 = try await mine.adopt(data, fileName: name, pageId: "heating")
        XCTAssertEqual(got4, .present(theirs.versionId))
        let got5 = try await mine.load(pageId: "heating", version: .id(host: "line-7", number: 1))
        XCTAssertEqual(got5, theirs)

        // Same id, another template (another archive time): refused, the first stays.
        let clash = try TemplateArchive(database: RecordStore.open(dataDirectory: dir.appendingPathComponent("c")), host: "line-7")
        let impostor = try await clash.store(template(value: 99))
        let impostorData = try await clash.exportData(pageId: "heating")
        do {
            _ = try await mine.adopt(impostorData, fileName: impostor.versionId.fileName, pageId: "heating")
            XCTFail("a second template with id line-7-1 was adopted")
        } catch {
            guard case .conflict(_, "line-7-1", _) = error else { return XCTFail("\(error)") }
        }
        // A file whose name does not match its content: refused.
        let renamed = name.replacingOccurrences(of: "v000001@", with: "v000005@")
        do {
            _ = try await mine.adopt(data, fileName: renamed, pageId: "heating")
            XCTFail("a renamed file was adopted")
        } catch {
            guard case .corrupt = error else { return XCTFail("\(error)") }
        }
        let got6 = try await mine.list(pageId: "heating").map(\.id)
        XCTAssertEqual(got6, ["line-7-1"])
    }
}
