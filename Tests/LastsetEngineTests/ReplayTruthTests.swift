import Foundation
import LastsetCore
import LastsetEngine
import ModbusLink
import TestSupport
import XCTest

/// The write path tells the truth when things go wrong (issue 8): reports and audit records match what
/// the machine holds, checked against real peers (pymodbus with fault hooks, `ModbusSlave` with fault
/// flags) and read back with mbpoll.
final class ReplayTruthTests: XCTestCase {
    private var dir: URL!
    private var engine: Engine!
    private var source: ModbusSlave!

    override func setUp() async throws {
        dir = try TestPaths.temporaryDirectory(prefix: "truth")
        engine = try Engine(dataDirectory: dir)
        source = try ModbusSlave(listen: .tcp(host: "127.0.0.1", port: 0))
        try source.start()
    }

    override func tearDown() async throws {
        // XCTest keeps every test case alive to the end of the run: the database (its descriptors) goes now.
        engine?.close()
        engine = nil
        source?.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    private func target(port: Int, id: String, limits: DeviceLimits = DeviceLimits()) -> DeviceTarget {
        let endpoint = Endpoint.tcp(host: "127.0.0.1", port: port)
        return DeviceTarget(
            deviceId: id, endpoint: endpoint, unit: 1, limits: limits,
            connection: ModbusConnection(endpoint: endpoint, options: LinkOptions(limits)))
    }

    /// A page of `count` u16 registers r0… from `address`, with an unlock and a commit step.
    private func page(_ id: String, address: Int, count: Int, step: Int = 1) -> CompiledPage {
        CompiledPage(
            PageDefinition(
                id: id, beforeWrite: [WriteStep(address: 1536, value: 6868)], afterWrite: [WriteStep(address: 2304, value: 0)],
                registers: (0..<count).map { RegisterDefinition(registerId: "r\($0)", address: address + step * $0, type: .u16) })
        )
    }

    /// Captures `page` from the source holding `values` at its registers.
    private func capture(_ page: CompiledPage, values: [UInt16]) async throws {
        for (i, r) in page.registers.enumerated() { source.setHoldingRegisters(address: r.address, values: [values[i]]) }
        let report = await engine.capture(page: page, from: target(port: source.port, id: "ref"), who: "uid:0")
        XCTAssertTrue(report.archived, "\(report.problems) \(report.error ?? "")")
    }

    private func lastRecord() async throws -> AuditRecord {
        let records = try await engine.audit.read().records
        return try XCTUnwrap(records.last)
    }

    // MARK: item 3

    /// Clamping device, rollback: the audit record carries per register what was written, what was read
    /// back, what the rollback restored and read back, and how the rollback ended — matching mbpoll.
    func testAuditRecordOfARolledBackReplayCarriesWrittenReadBackAndRestored() async throws {
        let page = page("clamp", address: 100, count: 3)
        try await capture(page, values: [2, 500, 9])
        let b = try pymodbusPeer([100: [1, 7, 3]], ["--clamp", "101:100"])
        let report = try await engine.apply(
            page: page, to: target(port: b.port!, id: "press-b"), options: ReplayOptions(onError: .rollback), who: "uid:0")
        XCTAssertEqual(report.status, .failed)
        XCTAssertEqual(report.rollback?.restored, true)
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 100, count: 3), [1, 7, 3], "restored")

        let record = try await lastRecord()
        XCTAssertEqual(record.result, .failed)
        XCTAssertEqual(record.rollback, .restored)
        let r1 = try XCTUnwrap(record.registers.first { $0.registerId == "r1" })
        XCTAssertEqual(r1.status, .replay(.mismatch))
        XCTAssertEqual(r1.before, .unsigned(7))
        XCTAssertEqual(r1.written, .unsigned(500))
        XCTAssertEqual(r1.readBack, .unsigned(100), "what the clamping device held after the write")
        XCTAssertEqual(r1.rollback, AuditRollback(restored: .unsigned(7), readBack: .unsigned(7), status: .verified))
        XCTAssertEqual(r1.after, .unsigned(7), "after = what the machine holds now (mbpoll agrees)")
        let r0 = try XCTUnwrap(record.registers.first { $0.registerId == "r0" })
        XCTAssertEqual(r0.after, .unsigned(1))
        XCTAssertEqual(r0.rollback?.status, .verified)
    }

    // MARK: item 4

    /// FC06 device killed right after its 5th write reached it: r0–r3 acknowledged, r4 in doubt (sent,
    /// never answered), r5… not attempted; the rollback covers r0–r4 and the audit names r4 in doubt.
    func testAWriteSentWithoutAnAnswerIsInDoubtAndRolledBack() async throws {
        let page = page("doubt", address: 500, count: 10)
        try await capture(page, values: (0..<10).map { UInt16(10 + $0) })
        // Unlock is write 1; r0…r3 are writes 2–5; the device dies on write 6 (r4), unanswered.
        let b = try pymodbusPeer([500: [UInt16](repeating: 0xFFFF, count: 10)], ["--exit-after-writes", "6"])
        var limits = DeviceLimits()
        limits.writeFunction = .fc06
        limits.timeout = .milliseconds(300)
        let report = try await engine.apply(
            page: page, to: target(port: b.port!, id: "press-b", limits: limits), options: ReplayOptions(onError: .rollback),
            who: "uid:0")
        XCTAssertEqual(try b.writes().map(\.address), [1536, 500, 501, 502, 503, 504], "the device logged r4's write")
        XCTAssertEqual(report.status, .failed)
        XCTAssertEqual(
            report.registers.map(\.status),
            [.unverified, .unverified, .unverified, .unverified, .inDoubt] + Array(repeating: .notAttempted, count: 5))
        XCTAssertEqual(report.lastConfirmed, "r3")
        XCTAssertEqual(report.firstInDoubt, "r4")
        XCTAssertTrue(report.stoppedAt?.contains("first in doubt r4") ?? false, report.stoppedAt ?? "nil")
        XCTAssertEqual(report.rollback?.registers.map(\.registerId), ["r0", "r1", "r2", "r3", "r4"])
        XCTAssertEqual(report.rollback?.restored, false, "the device is gone: the rollback cannot be verified")

        let record = try await lastRecord()
        let r4 = try XCTUnwrap(record.registers.first { $0.registerId == "r4" })
        XCTAssertEqual(r4.status, .replay(.inDoubt))
        XCTAssertEqual(r4.written, .unsigned(14))
        XCTAssertNotNil(r4.rollback, "in the rollback")
        XCTAssertEqual(record.registers.first { $0.registerId == "r5" }?.written, nil)
    }

    // MARK: item 7

    /// Page b@50 then a@60 on a drive where writing 60 resets 50 to 4660: the final pass reports b
    /// changed after its verification, the replay fails and the commit is not sent.
    func testTheFinalPassReportsADependentParameterResetByALaterWrite() async throws {
        let page = CompiledPage(
            PageDefinition(
                id: "drive", afterWrite: [WriteStep(address: 2304, value: 0)],
                registers: [
                    RegisterDefinition(registerId: "b", address: 50, type: .u16),
                    RegisterDefinition(registerId: "a", address: 60, type: .u16),
                ]))
        source.setHoldingRegisters(address: 50, values: [7])
        source.setHoldingRegisters(address: 60, values: [9])
        let capture = await engine.capture(page: page, from: target(port: source.port, id: "ref"), who: "uid:0")
        XCTAssertTrue(capture.archived)
        let drive = try ModbusSlave(
            listen: .tcp(host: "127.0.0.1", port: 0),
            faults: {
                var f = SlaveFaults()
                f.dependents = [60: [50: 4660]]
                return f
            }())
        drive.setHoldingRegisters(address: 50, values: [1])
        drive.setHoldingRegisters(address: 60, values: [1])
        try drive.start()
        defer { drive.stop() }
        let report = try await engine.apply(
            page: page, to: target(port: drive.port, id: "drive"), options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(try Mbpoll.readHolding(port: drive.port, unit: 1, address: 50, count: 1), [4660])
        XCTAssertEqual(report.registers.map(\.status), [.changedLater, .verified])
        XCTAssertEqual(report.registers[0].actual, .unsigned(4660))
        XCTAssertEqual(report.changedLater, ["b"])
        XCTAssertEqual(report.status, .failed)
        XCTAssertEqual(report.afterWrite.map(\.status), [.notAttempted])
        XCTAssertFalse(drive.writes.contains { $0.address == 2304 }, "no commit after a register changed")
        let record = try await lastRecord()
        XCTAssertEqual(record.registers.first?.status, .replay(.changedLater))
        XCTAssertEqual(record.registers.first?.after, .unsigned(4660))
    }

    // MARK: item 8

    /// A busy device makes the unlock and a write be retried: every frame on the wire is counted, the
    /// plan reported is the one sent (FC06 after the fallback), progress moves per write.
    func testEveryFrameIsCountedThePlanSentIsReportedAndProgressMovesPerWrite() async throws {
        let page = page("frames", address: 100, count: 6)
        try await capture(page, values: [1, 2, 3, 4, 5, 6])
        let b = try pymodbusPeer([100: [UInt16](repeating: 0xFFFF, count: 6)], ["--refuse-fc16", "--exception", "1536:6:2"])
        let seen = ProgressLog()
        let report = try await engine.apply(
            page: page, to: target(port: b.port!, id: "press-b"), options: ReplayOptions(), who: "uid:0",
            progress: { seen.add($0) })
        XCTAssertEqual(report.status, .succeeded, report.reason ?? "")
        let wire = try b.writes()
        XCTAssertEqual(wire.filter { $0.address == 1536 }.count, 3, "busy twice, then accepted")
        XCTAssertEqual(report.writeFrames, wire.count, "every write frame the device received")
        XCTAssertTrue(report.fellBackToFC06)
        // The plan as sent: the refused FC16 was re-planned as FC06 word by word (the refusal is a warning).
        XCTAssertEqual(report.plan.map(\.function), Array(repeating: .fc06, count: 6), "the plan sent")
        XCTAssertEqual(wire.filter { $0.function == 16 }.count, 1, "one FC16, refused")
        let writing = seen.all.filter { $0.phase == .writing }.map(\.done)
        XCTAssertEqual(Set(writing), Set(0...6), "progress per write: \(writing)")
    }

    // MARK: item 9

    /// A device answering reads over 40 registers with exception 03, no quirk: the snapshot, the
    /// verification and the final pass split their reads, all 60 verify and the commit runs.
    func testADeviceRefusingLongReadsIsReadInPartsAndTheReplayCommits() async throws {
        let page = page("long", address: 1000, count: 60)
        try await capture(page, values: (0..<60).map { UInt16($0) })
        let b = try pymodbusPeer([1000: [UInt16](repeating: 0xFFFF, count: 60)], ["--max-read", "40"])
        let report = try await engine.apply(
            page: page, to: target(port: b.port!, id: "press-b"), options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .succeeded, report.reason ?? "")
        XCTAssertEqual(report.count(.verified), 60)
        XCTAssertEqual(report.afterWrite.map(\.status), [.ok])
        XCTAssertTrue(try b.writes().contains { $0.address == 2304 }, "committed")
        let read =
            try Mbpoll.readHolding(port: b.port!, unit: 1, address: 1000, count: 30)
            + Mbpoll.readHolding(port: b.port!, unit: 1, address: 1030, count: 30)
        XCTAssertEqual(read, (0..<60).map { UInt16($0) })
    }

    // MARK: issue 13: windows

    /// A 2,000-register page plus 20 scattered registers, replayed to a libmodbus device: the requests
    /// on the wire are exactly snapshot (17) + writes (37) + window reads (17) + final pass (17).
    func testAReplaySendsExactlyTheMinimumRequests() async throws {
        let registers =
            (0..<2000).map { RegisterDefinition(registerId: "p\($0)", address: $0, type: .u16) }
            + (0..<20).map { RegisterDefinition(registerId: "s\($0)", address: 3000 + 5 * $0, type: .u16) }
        let page = CompiledPage(PageDefinition(id: "big", registers: registers))
        for r in registers { source.setHoldingRegisters(address: r.address, values: [UInt16(r.address % 1000)]) }
        let capture = await engine.capture(page: page, from: target(port: source.port, id: "ref"), who: "uid:0")
        XCTAssertTrue(capture.archived)
        XCTAssertEqual(capture.requests, 17, "the capture minimum")
        let b = try ModbusSlave(listen: .tcp(host: "127.0.0.1", port: 0))
        try b.start()
        defer { b.stop() }
        let report = try await engine.apply(page: page, to: target(port: b.port, id: "b"), options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .succeeded, report.reason ?? "")
        XCTAssertEqual(b.requestCount, 17 + 37 + 17 + 17)
        XCTAssertEqual(report.requests, b.requestCount)
        XCTAssertEqual(report.writeFrames, 37)
    }
}

/// Progress updates collected from the job's task.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [JobProgress] = []
    func add(_ p: JobProgress) { lock.withLock { items.append(p) } }
    var all: [JobProgress] { lock.withLock { items } }
}

extension ReplayTruthTests {
    /// A device refusing writes of more than 40 registers with exception 03, no quirk: the 60-register
    /// FC16 is re-planned as two of 30, every register verifies, the commit runs.
    func testAWriteRefusedAsTooLongIsSplitAndTheReplayCommits() async throws {
        let page = page("longwrite", address: 2000, count: 60)
        try await capture(page, values: (0..<60).map { UInt16(100 + $0) })
        let b = try pymodbusPeer([2000: [UInt16](repeating: 0xFFFF, count: 60)], ["--max-write", "40"])
        let report = try await engine.apply(
            page: page, to: target(port: b.port!, id: "press-b"), options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .succeeded, report.reason ?? "")
        XCTAssertEqual(report.count(.verified), 60)
        let writes = try b.writes().filter { $0.address >= 2000 && $0.address < 2060 }
        XCTAssertEqual(writes.map(\.count), [60, 30, 30], "refused once, then halves")
        XCTAssertEqual(writes.map(\.exception), [3, nil, nil])
        XCTAssertEqual(report.plan.map(\.count), [30, 30], "the plan sent")
        XCTAssertEqual(
            try Mbpoll.readHolding(port: b.port!, unit: 1, address: 2000, count: 60), (0..<60).map { UInt16(100 + $0) })
    }

    /// Halving a merged write refused as too long stays inside the window it was in. A (u32 @3000),
    /// B (u32 @3002), C (u16 @3004), D (u16 @3005); declared limits of 5 registers per read and per write,
    /// so the plan is FC16 3000+5 (A, B, C; window 1, read 3000+5) and D (window 2). The device
    /// (pymodbus, `--max-write 4`) refuses the 5-register write with exception 03 and clamps C to 7: the
    /// halves are A, B, C alone — and C's mismatch stops the replay before D. Before: the re-plan merged
    /// C with D (FC16 3004+2), so D was written beyond the window of C's mismatch.
    func testAHalvedMergedWriteStaysInsideItsWindow() async throws {
        let page = CompiledPage(
            PageDefinition(
                id: "halves",
                registers: [
                    RegisterDefinition(registerId: "A", address: 3000, type: .u32),
                    RegisterDefinition(registerId: "B", address: 3002, type: .u32),
                    RegisterDefinition(registerId: "C", address: 3004, type: .u16),
                    RegisterDefinition(registerId: "D", address: 3005, type: .u16),
                ]))
        source.setHoldingRegisters(address: 3000, values: [1, 34464, 3, 3392, 50, 60])
        let captured = await engine.capture(page: page, from: target(port: source.port, id: "ref"), who: "uid:0")
        XCTAssertTrue(captured.archived, "\(captured.problems) \(captured.error ?? "")")
        var limits = DeviceLimits()
        limits.maxReadRegisters = 5
        limits.maxWriteRegisters = 5
        let b = try pymodbusPeer([3000: [UInt16](repeating: 0xFFFF, count: 6)], ["--max-write", "4", "--clamp", "3004:7"])
        let report = try await engine.apply(
            page: page, to: target(port: b.port!, id: "press-b", limits: limits), options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .failed)
        XCTAssertEqual(report.registers.map(\.status), [.verified, .verified, .mismatch, .notAttempted])
        let writes = try b.writes().filter { $0.address >= 3000 && $0.address < 3010 }
        XCTAssertEqual(writes.map(\.address), [3000, 3000, 3002, 3004], "\(writes)")
        XCTAssertEqual(writes.map(\.count), [5, 2, 2, 1])
        XCTAssertEqual(writes.map(\.exception), [3, nil, nil, nil])
        XCTAssertFalse(writes.contains { $0.address + $0.count > 3005 }, "nothing written to D")
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 3000, count: 6), [1, 34464, 3, 3392, 7, 0xFFFF])
    }
}
