import Foundation
import LastsetCore
import LastsetEngine
import ModbusLink
import TestSupport
import XCTest

/// Fail closed (issue 8, item 6) and a bounded, rotating audit log (issue 9, item 2).
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
                AuditRegister(registerId: "r\($0)", before: .unsigned(1), after: .unsigned(2), status: .verified)
            }, job: job)
    }

    /// audit.jsonl is a directory: a replay writes no frame, a capture archives nothing, an import throws.
    func testNothingIsWrittenOrArchivedWhenTheAuditLogCannotBeWritten() async throws {
        let engine = try Engine(dataDirectory: dir)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("audit.jsonl"), withIntermediateDirectories: false)
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
        do {
            _ = try await engine.archive.load(pageId: "p")
            XCTFail("archived without an audit record")
        } catch {
            XCTAssertEqual(error, .notFound(pageId: "p", version: nil))
        }
        // The version's file, written while the intent was being appended, is not left behind.
        let pageDir = dir.appendingPathComponent("templates/p")
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: pageDir.path)) ?? [], [])

        // A template made elsewhere (a second engine with a working log): import refuses, replay refuses.
        let other = try Engine(dataDirectory: dir.appendingPathComponent("other"))
        let otherCapture = await other.capture(page: page, from: target, who: "uid:0")
        XCTAssertTrue(otherCapture.archived)
        let data = try await other.archive.exportData(pageId: "p", version: nil)
        do {
            _ = try await engine.importTemplate(data, into: page, who: "uid:0")
            XCTFail("imported without an audit record")
        } catch {
            XCTAssertTrue(error.description.contains("audit.jsonl"), error.description)
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
        // The journal, made durable beside the audit intent, does not outlive the refused replay: nothing is
        // left for the next start to report as interrupted.
        let leftovers = await engine.journal.leftovers()
        XCTAssertEqual(leftovers.map(\.url.lastPathComponent), [])
        let journalDir = dir.appendingPathComponent("journal")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: journalDir.path), [])
    }

    /// A full disk (a 64 KiB tmpfs): an append that does not fit is taken back whole; the log stays
    /// readable and the next append that fits lands on its own line.
    func testAnAppendOnAFullDiskIsWholeOrAbsent() async throws {
        let mnt = dir.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: mnt, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt.path]
        try mount.run()
        mount.waitUntilExit()
        XCTAssertEqual(mount.terminationStatus, 0, "mount tmpfs (the tests run as root in CI)")
        defer {
            let umount = Process()
            umount.executableURL = URL(fileURLWithPath: "/bin/umount")
            umount.arguments = [mnt.path]
            try? umount.run()
            umount.waitUntilExit()
        }
        let log = try AuditLog(dataDirectory: mnt)
        try await log.append(record(1))
        // Fill the file system but a few KiB.
        let filler = mnt.appendingPathComponent("filler")
        FileManager.default.createFile(atPath: filler.path, contents: nil)
        let handle = try FileHandle(forWritingTo: filler)
        let block = Data(repeating: 0x41, count: 4096)
        while (try? handle.write(contentsOf: block)) != nil {}
        try handle.close()
        try FileManager.default.removeItem(at: filler)
        FileManager.default.createFile(atPath: filler.path, contents: Data(repeating: 0x41, count: 56 << 10))
        let before = try Data(contentsOf: log.url)
        do {
            try await log.append(record(2, registers: 400))  // ~30 KiB: does not fit
            XCTFail("the append fitted; the test did not fill the disk")
        } catch {
            XCTAssertEqual(error.errno, ENOSPC, "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: log.url), before, "nothing of the failed record is left")
        try FileManager.default.removeItem(at: filler)
        try await log.append(record(3))
        let read = await log.read()
        XCTAssertEqual(read.records.map(\.templateVersion), [1, 3])
        XCTAssertEqual(read.unreadable, 0)
    }

    /// A tail torn by a crash (half a line, no newline): the reader counts it, the next record starts
    /// on its own line.
    func testTheReaderSurvivesATornTail() async throws {
        let log = try AuditLog(dataDirectory: dir)
        try await log.append(record(1))
        let torn = try FileHandle(forWritingTo: log.url)
        try torn.seekToEnd()
        try torn.write(contentsOf: Data("{\"device\":\"d\",\"endp".utf8))
        try torn.close()
        try await log.append(record(2))
        let read = await log.read()
        XCTAssertEqual(read.records.map(\.templateVersion), [1, 2])
        XCTAssertEqual(read.unreadable, 1)
    }

    /// Rotation by size into numbered segments: every record is kept, and a read walks back into the
    /// older segments, newest last, with intents folded into their completion.
    func testTheLogRotatesIntoSegmentsThatStayReadable() async throws {
        let log = try AuditLog(dataDirectory: dir, segmentBytes: 4096)
        for i in 1...60 {
            try await log.append(record(i, job: "job\(i)", result: .started))
            try await log.append(record(i, job: "job\(i)"))
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("audit.") }
        XCTAssertGreaterThan(names.count, 3, "\(names)")
        for name in names {
            let size = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(name).path)[.size] as! Int
            XCTAssertLessThanOrEqual(size, 4096, name)
        }
        let all = await log.read(limit: 1000)
        XCTAssertEqual(all.records.map(\.templateVersion), Array(1...60).map { Optional($0) })
        XCTAssertEqual(all.records.map(\.result), Array(repeating: .succeeded, count: 60))
        let last = await log.read(limit: 5)
        XCTAssertEqual(last.records.map(\.templateVersion), Array(56...60).map { Optional($0) })
    }
}
