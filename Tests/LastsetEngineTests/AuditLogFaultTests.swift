import Foundation
import LastsetCore
import LastsetEngine
import ModbusLink
import TestSupport
import XCTest

/// Fail closed (issue 8, item 6), and the audit log in the database (issue 20): whole-or-absent records on a full
/// disk, and the old log files (segments, a torn tail) imported in order.
final class AuditLogFaultTests: XCTestCase {
    private var dir: URL!

    override func setUp() async throws {
        dir = try TestPaths.temporaryDirectory(prefix: "auditfault")
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func record(_ i: Int, registers: Int = 1, job: String? = nil, result: AuditResult = .succeeded) -> AuditRecord {
        AuditRecord(
            time: Date(timeIntervalSince1970: 1_800_000_000 + Double(i)), kind: .replay, who: "uid:\(i)", pageId: "p",
            device: "d", endpoint: "tcp://127.0.0.1:1", unit: 1, identity: [], templateVersion: i, pageHash: "sha256:00",
            result: result, message: nil,
            registers: (0..<registers).map {
                AuditRegister(registerId: "r\($0)", before: .unsigned(1), after: .unsigned(2), status: .replay(.verified))
            }, job: job)
    }

    /// The database can take no commit (closed under the engine): a replay writes no frame, a capture archives
    /// nothing, an import throws; reopened, the database holds no version and no record of any of them.
    func testNothingIsWrittenOrArchivedWhenTheAuditLogCannotBeWritten() async throws {
        let engine = try Engine(dataDirectory: dir)
        engine.close()
        let source = try ModbusSlave(listen: .tcp(host: "127.0.0.1", port: 0))
        source.setHoldingRegisters(address: 10, values: [5, 6])
        try source.start()
        defer { source.stop() }
        let page = CompiledPage(
            PageDefinition(
                id: "p",
                registers: [
                    RegisterDefinition(registerId: "a", address: 10, type: .u16),
                    RegisterDefinition(registerId: "b", address: 11, type: .u16),
                ]))
        let endpoint = Endpoint.tcp(host: "127.0.0.1", port: source.port)
        let target = DeviceTarget(
            deviceId: "d", endpoint: endpoint, unit: 1, limits: DeviceLimits(), connection: ModbusConnection(endpoint: endpoint))
        let capture = await engine.capture(page: page, from: target, who: "uid:0")
        XCTAssertFalse(capture.archived)
        XCTAssertTrue(capture.error?.contains("nothing archived") ?? false, capture.error ?? "nil")

        // A template made elsewhere (a second engine with a working log): import refuses, replay refuses.
        let other = try Engine(dataDirectory: dir.appendingPathComponent("other"))
        let otherCapture = await other.capture(page: page, from: target, who: "uid:0")
        XCTAssertTrue(otherCapture.archived)
        let data = try await other.archive.exportData(pageId: "p", version: nil)
        do {
            _ = try await engine.importTemplate(data, into: page, who: "uid:0")
            XCTFail("imported without an audit record")
        } catch {
            XCTAssertTrue(error.description.contains(RecordStore.fileName), error.description)
        }
        let template = try await other.archive.load(pageId: "p")
        let b = try ModbusSlave(listen: .tcp(host: "127.0.0.1", port: 0))
        try b.start()
        defer { b.stop() }
        let bEndpoint = Endpoint.tcp(host: "127.0.0.1", port: b.port)
        let report = await engine.apply(
            page: page, template: template,
            to: DeviceTarget(
                deviceId: "b", endpoint: bEndpoint, unit: 1, limits: DeviceLimits(),
                connection: ModbusConnection(endpoint: bEndpoint)),
            options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .refused)
        XCTAssertTrue(report.reason?.contains("nothing written") ?? false, report.reason ?? "nil")
        XCTAssertEqual(report.writeFrames, 0)
        XCTAssertEqual(b.writes.count, 0, "no frame without an audit record")
        let reopened = try Engine(dataDirectory: dir)
        // The journal's intent commits with the audit intent or not at all: nothing is left for the next start to
        // report as interrupted.
        let leftovers = try await reopened.journal.leftovers()
        XCTAssertEqual(leftovers.map(\.job), [])
        do {
            _ = try await reopened.archive.load(pageId: "p")
            XCTFail("archived without an audit record")
        } catch {
            XCTAssertEqual(error, .notFound(pageId: "p", version: nil))
        }
        let records = try await reopened.audit.read(limit: 100).records
        XCTAssertEqual(records, [], "nothing recorded of jobs that did nothing")
    }

    /// A full disk (a 1 MiB tmpfs filled but 8 KiB): a record that does not fit fails with ENOSPC and is absent
    /// (one commit, rolled back); the log stays readable and the next record that fits goes in.
    func testAnAppendOnAFullDiskIsWholeOrAbsent() async throws {
        let mnt = dir.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: mnt, withIntermediateDirectories: true)
        let mount = try ProgramRun.run(
            URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt.path])
        XCTAssertEqual(mount.status, 0, "mount tmpfs (the tests run as root in CI): \(mount.stderr)")
        defer { _ = try? ProgramRun.run(URL(fileURLWithPath: "/bin/umount"), [mnt.path]) }
        let database = try RecordStore.open(dataDirectory: mnt)
        defer { database.close() }
        let log = AuditLog(database: database)
        try await log.append(record(1))
        // Fill the file system but 8 KiB.
        var fs = statvfs()
        XCTAssertEqual(statvfs(mnt.path, &fs), 0)
        let free = Int(fs.f_bavail) * Int(fs.f_frsize)
        let filler = mnt.appendingPathComponent("filler")
        FileManager.default.createFile(atPath: filler.path, contents: Data(repeating: 0x41, count: max(0, free - (8 << 10))))
        do {
            try await log.append(record(2, registers: 400))  // ~30 KiB: does not fit
            XCTFail("the append fitted; the test did not fill the disk")
        } catch {
            XCTAssertEqual(error.errno, ENOSPC, "\(error)")
            XCTAssertTrue(error.description.contains(RecordStore.fileName), error.description)
        }
        try FileManager.default.removeItem(at: filler)
        try await log.append(record(3))
        let read = try await log.read()
        XCTAssertEqual(read.records.map(\.templateVersion), [1, 3], "nothing of the failed record is left")
        XCTAssertEqual(read.unreadable, 0)
    }

    /// The JSON line of `r`, as the release before the database wrote its log.
    private func line(_ r: AuditRecord) throws -> String {
        String(decoding: try APICoding.encoder().encode(r), as: UTF8.self) + "\n"
    }

    /// An old log whose tail a crash tore (half a line, no newline): imported with the torn line counted as
    /// unreadable (kept in `audit_unreadable`), the records around it whole; a record appended after it is read.
    func testTheReaderSurvivesATornTail() async throws {
        try (line(record(1)) + "{\"device\":\"d\",\"endp").write(
            to: dir.appendingPathComponent("audit.jsonl"), atomically: true, encoding: .utf8)
        let engine = try Engine(dataDirectory: dir)
        try await engine.audit.append(record(2))
        let read = try await engine.audit.read()
        XCTAssertEqual(read.records.map(\.templateVersion), [1, 2])
        XCTAssertEqual(read.unreadable, 1)
        let kept = try SQLiteShell.query(
            dir.appendingPathComponent(RecordStore.fileName), "SELECT source, CAST(line AS TEXT) FROM audit_unreadable")
        XCTAssertEqual(kept, ["audit.jsonl\u{1F}{\"device\":\"d\",\"endp"])
    }

    /// The old log's numbered segments and live file are imported oldest first: every record is kept, reads
    /// are newest last with intents folded into their completion, and the filters (an indexed column each, a
    /// job prefix a range) find records however old.
    func testTheLogRotatesIntoSegmentsThatStayReadable() async throws {
        var lines: [String] = []
        for i in 1...60 {
            lines.append(try line(record(i, job: "job\(i)", result: .started)))
            lines.append(try line(record(i, job: "job\(i)")))
        }
        // As the release rotated them: segment 1 the oldest, the live file the newest.
        for (n, chunk) in stride(from: 0, to: lines.count, by: 40).enumerated() {
            let name = n < 2 ? "audit.00000\(n + 1).jsonl" : "audit.jsonl"
            try lines[chunk..<min(chunk + 40, lines.count)].joined().write(
                to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let engine = try Engine(dataDirectory: dir)
        XCTAssertTrue(engine.importNote?.contains("120 audit records") ?? false, engine.importNote ?? "nil")
        let all = try await engine.audit.read(limit: 1000)
        XCTAssertEqual(all.records.map(\.templateVersion), Array(1...60).map { Optional($0) })
        XCTAssertEqual(all.records.map(\.result), Array(repeating: .succeeded, count: 60))
        let last = try await engine.audit.read(limit: 5)
        XCTAssertEqual(last.records.map(\.templateVersion), Array(56...60).map { Optional($0) })
        let byJob = try await engine.audit.read(limit: 100, matching: AuditFilter(job: "job5"))
        XCTAssertEqual(byJob.records.map(\.templateVersion), [5] + Array(50...59).map { Optional($0) })
        let byWho = try await engine.audit.read(limit: 100, matching: AuditFilter(who: "uid:7", results: [.succeeded]))
        XCTAssertEqual(byWho.records.map(\.templateVersion), [7])
        let byTime = try await engine.audit.read(
            limit: 100,
            matching: AuditFilter(
                since: Date(timeIntervalSince1970: 1_800_000_010), until: Date(timeIntervalSince1970: 1_800_000_013)))
        XCTAssertEqual(byTime.records.map(\.templateVersion), [10, 11, 12])
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("audit.") }
        XCTAssertEqual(left, [], "moved aside")
        let aside = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("pre-sqlite").path).sorted()
        XCTAssertEqual(aside, ["audit.000001.jsonl", "audit.000002.jsonl", "audit.jsonl"])
    }
}
