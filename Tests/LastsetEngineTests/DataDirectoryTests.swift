import Foundation
import LastsetCore
import LastsetEngine
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// The data directory's own defences: one daemon at a time, no link followed, durability failures told truthfully.
final class DataDirectoryTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory(prefix: "datadir")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    func testTheLockIsExclusiveNamesItsHolderAndIsReleasedWithIt() throws {
        let data = dir.appendingPathComponent("data")
        var first: DataDirectoryLock? = try DataDirectoryLock(directory: data, now: Date(timeIntervalSince1970: 1_800_000_000))
        XCTAssertNotNil(first)
        XCTAssertThrowsError(try DataDirectoryLock(directory: data)) { error in
            XCTAssertEqual(
                error as? DataDirectoryLockError,
                .held(directory: data.path, holder: "pid \(getpid()) since 2027-01-15T08:00:00.000Z"))
            XCTAssertTrue("\(error)".contains("in use by another lastsetd (pid \(getpid()) since 2027-01-15T08:00:00.000Z)"))
        }
        first = nil
        XCTAssertNoThrow(try DataDirectoryLock(directory: data))
    }

    func testALockFilePlantedAsASymlinkIsNotFollowed() throws {
        let outside = dir.appendingPathComponent("outside.txt")
        try Data("precious\n".utf8).write(to: outside)
        let data = dir.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        XCTAssertEqual(symlink(outside.path, data.appendingPathComponent(DataDirectoryLock.fileName).path), 0)
        XCTAssertThrowsError(try DataDirectoryLock(directory: data)) { error in
            XCTAssertTrue("\(error)".contains("is a symbolic link"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOf: outside, encoding: .utf8), "precious\n")
    }

    /// A FIFO planted as a version file would block a plain open forever: it is refused at once.
    func testAFIFOPlantedAsATemplateIsRefusedWithoutBlocking() async throws {
        let archive = try TemplateArchive(dataDirectory: dir)
        let template = Template(
            pageId: "heating", pageHash: "sha256:abc", version: 0, capturedAt: Date(timeIntervalSince1970: 1_800_000_000),
            capturedBy: "uid:0",
            source: TemplateSource(deviceId: "press-1", endpoint: "tcp://127.0.0.1:1", unit: 1, identity: []),
            entries: [
                TemplateEntry(
                    registerId: "r0", address: 100, length: 1, valueData: "0007", value: .unsigned(7),
                    lastDate: Date(timeIntervalSince1970: 1_800_000_000))
            ], skipped: [])
        _ = try await archive.store(template)
        XCTAssertEqual(mkfifo(dir.appendingPathComponent("templates/heating/v000002.json").path, 0o640), 0)
        do {
            _ = try await archive.load(pageId: "heating")
            XCTFail("a FIFO was served")
        } catch {
            XCTAssertEqual("\(error)".contains("not a regular file"), true, "\(error)")
        }
        let listing = try await archive.list(pageId: "heating")
        XCTAssertEqual(listing.map(\.checksumOK), [false, true])
    }

    /// `templates` itself planted as a link to elsewhere: the archive refuses to open rather than write there.
    func testATemplatesDirectoryPlantedAsASymlinkIsRefused() throws {
        let elsewhere = dir.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let data = dir.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        XCTAssertEqual(symlink(elsewhere.path, data.appendingPathComponent("templates").path), 0)
        XCTAssertThrowsError(try TemplateArchive(dataDirectory: data)) { error in
            XCTAssertTrue("\(error)".contains("templates: it is a symbolic link"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), [])
    }
    /// `journal` planted as a link to elsewhere: the replay journal refuses to open rather than write
    /// journals (and their unlinks) there.
    func testAJournalDirectoryPlantedAsASymlinkIsRefused() throws {
        let elsewhere = dir.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try Data("{}\n".utf8).write(to: elsewhere.appendingPathComponent("victim.jsonl"))
        let data = dir.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        XCTAssertEqual(symlink(elsewhere.path, data.appendingPathComponent("journal").path), 0)
        XCTAssertThrowsError(try Engine(dataDirectory: data)) { error in
            XCTAssertTrue("\(error)".contains("journal: it is a symbolic link"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), ["victim.jsonl"])
    }

    /// `device-state.json` planted as a link to a file outside: never read through (the state says why it
    /// could not be loaded), and the file outside is left as it was.
    func testADeviceStateFilePlantedAsASymlinkIsNotReadThrough() async throws {
        let outside = dir.appendingPathComponent("outside.json")
        let planted =
            #"{"format":"lastset-device-state","states":[{"device":"press-1","pageId":"heating"}]}"#
        try Data(planted.utf8).write(to: outside)
        let data = dir.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        XCTAssertEqual(symlink(outside.path, data.appendingPathComponent(DeviceStateStore.fileName).path), 0)
        let store = try DeviceStateStore(dataDirectory: data)
        let states = await store.all()
        XCTAssertEqual(states.count, 0, "state was read through a planted link")
        let problem = await store.loadProblem
        XCTAssertTrue(problem?.contains("symbolic link") ?? false, problem ?? "no load problem noted")
        XCTAssertEqual(try String(contentsOf: outside, encoding: .utf8), planted)
    }
}
