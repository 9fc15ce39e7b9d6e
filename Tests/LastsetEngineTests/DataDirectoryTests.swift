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

    /// A FIFO planted among the version files of the release before the database would block a plain open
    /// forever: the import refuses it at once (it is not imported, and is named), imports the rest, and moves it
    /// aside with the rest, unopened.
    func testAFIFOPlantedAsATemplateIsRefusedWithoutBlocking() async throws {
        let template = Template(
            pageId: "heating", pageHash: "sha256:abc", version: 1, capturedAt: Date(timeIntervalSince1970: 1_800_000_000),
            capturedBy: "uid:0",
            source: TemplateSource(deviceId: "press-1", endpoint: "tcp://127.0.0.1:1", unit: 1, identity: []),
            entries: [
                TemplateEntry(
                    registerId: "r0", address: 100, length: 1, valueData: "0007", value: .unsigned(7),
                    lastDate: Date(timeIntervalSince1970: 1_800_000_000))
            ], skipped: [])
        let pageDir = dir.appendingPathComponent("templates/heating")
        try FileManager.default.createDirectory(at: pageDir, withIntermediateDirectories: true)
        try TemplateFile.encode(template).write(to: pageDir.appendingPathComponent("v000001.json"))
        XCTAssertEqual(mkfifo(pageDir.appendingPathComponent("v000002.json").path, 0o640), 0)
        let engine = try Engine(dataDirectory: dir)
        let note = try XCTUnwrap(engine.importNote)
        XCTAssertTrue(note.contains("not imported (not the release's own files): templates/heating/v000002.json (") && note.contains("not a regular file"), note)
        let listing = try await engine.archive.list(pageId: "heating")
        XCTAssertEqual(listing.map(\.version), [1])
        XCTAssertEqual(listing.map(\.checksumOK), [true])
        var st = stat()
        XCTAssertEqual(lstat(dir.appendingPathComponent("pre-sqlite/templates/heating/v000002.json").path, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFIFO, "moved aside as it was")
    }

    /// `templates` itself planted as a link to elsewhere: the import refuses it (nothing is imported, the daemon
    /// does not start) rather than read or move what it points to.
    func testATemplatesDirectoryPlantedAsASymlinkIsRefused() throws {
        let elsewhere = dir.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let data = dir.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        XCTAssertEqual(symlink(elsewhere.path, data.appendingPathComponent("templates").path), 0)
        XCTAssertThrowsError(try Engine(dataDirectory: data)) { error in
            XCTAssertTrue("\(error)".contains("templates: it is a symbolic link"), "\(error)")
            XCTAssertTrue("\(error)".contains("nothing was imported"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), [])
        var st = stat()
        XCTAssertEqual(lstat(data.appendingPathComponent("templates").path, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFLNK, "left where it was")
    }

    /// `lastset.db` planted as a link to a file outside: the engine refuses to open it, and the file it points to
    /// is left as it was.
    func testADatabasePlantedAsASymlinkIsRefused() throws {
        let outside = dir.appendingPathComponent("outside.db")
        try Data("precious\n".utf8).write(to: outside)
        let data = dir.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        XCTAssertEqual(symlink(outside.path, data.appendingPathComponent(RecordStore.fileName).path), 0)
        XCTAssertThrowsError(try Engine(dataDirectory: data)) { error in
            XCTAssertTrue("\(error)".contains(RecordStore.fileName), "\(error)")
        }
        XCTAssertEqual(try String(contentsOf: outside, encoding: .utf8), "precious\n")
    }

    /// `journal` (a folder of the release before the database) planted as a link to elsewhere: the import refuses
    /// it (nothing imported, the daemon does not start) rather than read journals through it, and what is there is
    /// left as it was.
    func testAJournalDirectoryPlantedAsASymlinkIsRefused() throws {
        let elsewhere = dir.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try Data("{}\n".utf8).write(to: elsewhere.appendingPathComponent("victim.jsonl"))
        let data = dir.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        XCTAssertEqual(symlink(elsewhere.path, data.appendingPathComponent("journal").path), 0)
        XCTAssertThrowsError(try Engine(dataDirectory: data)) { error in
            XCTAssertTrue("\(error)".contains("journal: it is a symbolic link"), "\(error)")
            XCTAssertTrue("\(error)".contains("nothing was imported"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), ["victim.jsonl"])
    }

    /// The release's `device-state` directory planted as a link to a directory outside, or one of its files planted
    /// as a link to a file outside: never read through (the import says why, imports no state, and the start
    /// rebuilds it from the audit log), and what is outside is left as it was.
    func testADeviceStatePlantedAsASymlinkIsNotReadThrough() async throws {
        let planted = #"{"format":"lastset-device-state","state":{"device":"press-1","pageId":"heating"}}"#
        let name = "0123456789abcdef0123456789abcdef.json"
        for linkTheDirectory in [true, false] {
            let outside = dir.appendingPathComponent("outside-\(linkTheDirectory)")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            try Data(planted.utf8).write(to: outside.appendingPathComponent(name))
            let data = dir.appendingPathComponent("data-\(linkTheDirectory)")
            let stateDir = data.appendingPathComponent("device-state")
            if linkTheDirectory {
                try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
                XCTAssertEqual(symlink(outside.path, stateDir.path), 0)
            } else {
                try FileManager.default.createDirectory(at: stateDir, withIntermediateDirectories: true)
                XCTAssertEqual(symlink(outside.appendingPathComponent(name).path, stateDir.appendingPathComponent(name).path), 0)
            }
            let engine = try Engine(dataDirectory: data)
            let states = await engine.deviceState.all()
            XCTAssertEqual(states.count, 0, "state was read through a planted link (directory linked: \(linkTheDirectory))")
            let note = engine.importNote ?? ""
            XCTAssertTrue(note.contains("device state not imported") && note.contains("symbolic link"), note)
            XCTAssertEqual(try String(contentsOf: outside.appendingPathComponent(name), encoding: .utf8), planted)
            engine.close()
        }
    }

    private func applied(_ version: Int, entries: Int) -> AppliedTemplate {
        AppliedTemplate(
            version: version, pageHash: "h", appliedAt: Date(timeIntervalSince1970: 1_800_000_000), appliedBy: "uid:0",
            job: "job-\(version)",
            entries: (0..<entries).map { RecordedValue(registerId: "r\($0)", address: $0, valueData: "0001", value: .unsigned(1)) })
    }

    /// A device page's state is one row: recording a small page leaves a big page's row on another device as it
    /// was; a new store reads every row back as committed; "which devices hold this version" is answered by index.
    func testEachDevicePageIsOneRowReadBackAsCommitted() async throws {
        let data = dir.appendingPathComponent("data")
        let engine = try Engine(dataDirectory: data)
        let store = engine.deviceState
        try await store.recordApplied(device: "press-1", pageId: "big", applied(1, entries: 5000))
        try await store.recordApplied(device: "press-2", pageId: "small", applied(1, entries: 3))
        let db = data.appendingPathComponent(RecordStore.fileName)
        let bigBefore = try SQLiteShell.query(db, "SELECT state FROM device_page_state WHERE page_id = 'big'")
        try await store.recordApplied(device: "press-2", pageId: "small", applied(2, entries: 3))
        try await store.mark(
            UnverifiedMark(device: "press-2", pageId: "small", since: Date(), job: "j", message: "interrupted"))
        XCTAssertEqual(try SQLiteShell.query(db, "SELECT state FROM device_page_state WHERE page_id = 'big'"), bigBefore)
        XCTAssertEqual(
            try SQLiteShell.query(db, "SELECT device, page_id, applied_version_id FROM device_page_state ORDER BY device"),
            ["press-1\u{1F}big\u{1F}1", "press-2\u{1F}small\u{1F}2"])
        let holders = try await store.holders(pageId: "small", versionId: "2")
        XCTAssertEqual(holders, ["press-2"])
        let none = try await store.holders(pageId: "small", versionId: "1")
        XCTAssertEqual(none, [])
        let plan = try SQLiteShell.query(
            db, "EXPLAIN QUERY PLAN SELECT device FROM device_page_state WHERE page_id = 'small' AND applied_version_id = '2'")
        XCTAssertTrue(plan.joined().contains("device_state_by_version"), "\(plan)")
        engine.close()

        let reopened = try Engine(dataDirectory: data)
        let problem = await reopened.deviceState.loadProblem
        XCTAssertNil(problem)
        let states = await reopened.deviceState.all()
        XCTAssertEqual(states.map(\.device), ["press-1", "press-2"])
        XCTAssertEqual(states[1].applied?.version, 2)
        XCTAssertNotNil(states[1].unverified)
        XCTAssertEqual(states[0].applied?.entries.count, 5000)
        reopened.close()
    }

    /// The single `device-state.json` of older releases is imported into rows at the first start and moved aside.
    func testALegacyDeviceStateFileIsImportedIntoRows() async throws {
        let data = dir.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let legacy =
            #"{"format":"lastset-device-state","states":[{"device":"press-1","pageId":"heating","#
            + #""applied":{"version":3,"versionId":"3","pageHash":"h","appliedAt":"2027-01-15T08:00:00Z","appliedBy":"uid:0","entries":[]}},"#
            + #"{"device":"tcp://127.0.0.1:5020 unit 1","pageId":"motion","unverified":{"device":"tcp://127.0.0.1:5020 unit 1","#
            + #""pageId":"motion","since":"2027-01-15T08:00:00Z","job":"j","message":"interrupted"}}]}"#
        try Data(legacy.utf8).write(to: data.appendingPathComponent("device-state.json"))
        let engine = try Engine(dataDirectory: data)
        let problem = await engine.deviceState.loadProblem
        XCTAssertNil(problem)
        let states = await engine.deviceState.all()
        XCTAssertEqual(states.map(\.pageId), ["heating", "motion"])
        XCTAssertEqual(states[0].applied?.version, 3)
        XCTAssertNotNil(states[1].unverified)
        XCTAssertTrue(engine.importNote?.contains("2 device page states") ?? false, engine.importNote ?? "nil")
        XCTAssertFalse(FileManager.default.fileExists(atPath: data.appendingPathComponent("device-state.json").path))
        XCTAssertTrue(
            FileManager.default.fileExists(
                atPath: data.appendingPathComponent(RecordStore.keptAsideName).appendingPathComponent("device-state.json").path))
        engine.close()
        let reopened = try Engine(dataDirectory: data)
        let again = await reopened.deviceState.all()
        XCTAssertEqual(again, states)
        XCTAssertNil(reopened.importNote)
        reopened.close()
    }
}
