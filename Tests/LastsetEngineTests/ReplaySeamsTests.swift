import Foundation
import LastsetCore
import LastsetEngine
import ModbusLink
import TestSupport
import XCTest

/// The replay where its parts meet (issue 19): a failed commit and the rollback, a refusal and the
/// re-plan that supersedes it, exception 03 on one register. Every case runs against `lastset-sim`
/// processes with their fault flags, and is checked from the device's side: its `--log-writes` lines
/// and mbpoll.
final class ReplaySeamsTests: XCTestCase {
    static let config = """
        {
          version: 1,
          devices: [ { id: "press", endpoint: "tcp://127.0.0.1:1", unit: 1, pages: ["heating", "long", "wide", "single"] } ],
          pages: [
            {
              id: "heating",
              identity: [ { registerId: "model", address: 0, type: "string(8)" } ],
              beforeWrite: [ { address: 1536, value: 6868 } ],
              afterWrite: [ { address: 2304, value: 0 } ],
              registers: [
                { registerId: "heating.mode", address: 100, type: "u16", enum: [0, 1, 2] },
                { registerId: "heating.setpoint", address: 101, type: "s16", min: -200, max: 900, scale: 0.1, unit: "°C" },
                { registerId: "heating.energy", address: 102, type: "u32", wordOrder: "little" },
                { registerId: "heating.label", address: 110, type: "string(8)" },
              ],
            },
            {
              id: "long",
              registers: [
        \((0..<60).map { "        { registerId: \"r\($0)\", address: \(500 + $0), type: \"s16\", scale: 0.1, unit: \"°C\" }," }.joined(separator: "\n"))
              ],
            },
            {
              id: "wide",
              registers: [
                { registerId: "w.a", address: 700, type: "u32" },
                { registerId: "w.b", address: 702, type: "u32" },
                { registerId: "w.c", address: 704, type: "s64" },
              ],
            },
            {
              id: "single",
              registers: [ { registerId: "s.limit", address: 800, type: "u32" } ],
            },
          ],
        }
        """

    /// Reference values of the pages (the capture source holds them).
    static let reference = """
        {"model": "PRS-200", "heating.mode": 2, "heating.setpoint": -150, "heating.energy": 123456, "heating.label": "Line 3",
         \((0..<60).map { "\"r\($0)\": \(100 + $0)" }.joined(separator: ", ")),
         "w.a": 70000, "w.b": 4000000000, "w.c": -5000000000, "s.limit": 4294959680}
        """
    /// A target holding the model and every other register at its "not set" default.
    static let blank = #"{"model": "PRS-200"}"#

    private var dir: URL!
    private var engine: Engine!
    private var configPath = ""
    private var compiled: CompiledConfig!

    override func setUp() async throws {
        dir = try TestPaths.temporaryDirectory(prefix: "seams")
        engine = try Engine(dataDirectory: dir.appendingPathComponent("data"))
        configPath = dir.appendingPathComponent("lastset.json").path
        try Self.config.write(toFile: configPath, atomically: true, encoding: .utf8)
        compiled = try ConfigLoader.load(path: configPath)
    }

    override func tearDown() async throws {
        // XCTest keeps every test case alive to the end of the run: the database (its descriptors) goes now.
        engine?.close()
        engine = nil
        try? FileManager.default.removeItem(at: dir)
    }

    /// A `lastset-sim` serving the pages with `values`, logging its writes, with fault `flags`.
    private func simulator(_ values: String, _ flags: [String] = []) throws -> SimulatorProcess {
        let file = dir.appendingPathComponent("values-\(UUID().uuidString).json")
        try values.write(to: file, atomically: true, encoding: .utf8)
        let sim = try SimulatorProcess.start(
            ["--config", configPath, "--device", "press", "--tcp", "127.0.0.1:0", "--values", file.path, "--log-writes"]
                + flags)
        addTeardownBlock { sim.stop() }
        return sim
    }

    private func target(_ sim: SimulatorProcess, id: String, limits: DeviceLimits = DeviceLimits()) -> DeviceTarget {
        let endpoint = Endpoint.tcp(host: "127.0.0.1", port: sim.port!)
        return DeviceTarget(
            deviceId: id, endpoint: endpoint, unit: 1, limits: limits,
            connection: ModbusConnection(endpoint: endpoint, options: LinkOptions(limits)))
    }

    private func page(_ id: String) throws -> CompiledPage { try XCTUnwrap(compiled.page(id)) }

    /// Captures `pageId` again from a simulator holding `values` (the next version).
    private func recapture(_ pageId: String, values: String) async throws {
        let source = try simulator(values)
        let report = await engine.capture(page: try page(pageId), from: target(source, id: "ref"), who: "uid:0")
        XCTAssertTrue(report.archived, "\(report.problems) \(report.error ?? "")")
    }

    /// Captures `pageId` from a simulator holding the reference values.
    private func capture(_ pageId: String) async throws -> CompiledPage {
        let page = try page(pageId)
        let source = try simulator(Self.reference)
        let report = await engine.capture(page: page, from: target(source, id: "ref"), who: "uid:0")
        XCTAssertTrue(report.archived, "\(report.problems) \(report.error ?? "")")
        return page
    }

    /// Every write the simulator logged so far: a marker write (FC06 to 9999, through mbpoll) is logged
    /// after all of them, so once its line is in, every earlier line is too. The marker is left out.
    private func writes(_ sim: SimulatorProcess) throws -> [String] {
        let before = sim.writeLines.filter { $0.contains("address=9999 ") }.count
        try Mbpoll.writeHolding(port: sim.port!, unit: 1, address: 9999, values: [1])
        let markers = sim.process.waitForLines(count: before + 1) { $0.hasPrefix("WRITE ") && $0.contains("address=9999 ") }
        XCTAssertEqual(markers.count, before + 1, "the marker write was logged")
        return sim.writeLines.filter { !$0.contains("address=9999 ") }
    }

    // MARK: defect 11

    /// Every register verified, the commit (afterWrite) answered exception 04, `onError: rollback`: the
    /// snapshot is restored and verified, and the report says so. Before: FAILED, no write after the
    /// refused commit, the new values stayed.
    func testAFailedCommitUnderRollbackRestoresTheSnapshot() async throws {
        let page = try await capture("heating")
        let b = try simulator(Self.blank, ["--exception", "2304:4"])
        let before = try Mbpoll.readHolding(port: b.port!, unit: 1, address: 100, count: 8)
        let report = await engine.apply(
            page: page, template: try await engine.archive.load(pageId: "heating"), to: target(b, id: "press-b"),
            options: ReplayOptions(onError: .rollback), who: "uid:0")
        XCTAssertEqual(report.status, .failed)
        XCTAssertEqual(report.registers.map(\.status), [.verified, .verified, .verified, .verified])
        XCTAssertEqual(report.afterWrite.map(\.status), [.failed])
        XCTAssertEqual(report.rollback?.restored, true, report.reason ?? "")
        XCTAssertEqual(
            report.rollback?.registers.map(\.registerId), ["heating.mode", "heating.setpoint", "heating.energy", "heating.label"])
        XCTAssertTrue(report.reason?.contains("rolled back") ?? false, report.reason ?? "nil")

        // The device's side: the commit refused, then the restores; it holds what it held before.
        let wire = try writes(b)
        let commit = try XCTUnwrap(wire.firstIndex { $0.contains("address=2304 ") }, "\(wire)")
        XCTAssertTrue(wire[commit].hasSuffix("exception=04"), wire[commit])
        XCTAssertEqual(
            Array(wire[(commit + 1)...]),
            [
                "WRITE fc=16 unit=1 address=100 count=4 values=65535,32767,65535,65535",
                "WRITE fc=16 unit=1 address=110 count=4 values=65535,65535,65535,65535",
            ], "the restores after the refused commit")
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 100, count: 8), before)
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 110, count: 4), [0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF])

        let records = try await engine.audit.read().records
        let record = try XCTUnwrap(records.last)
        XCTAssertEqual(record.result, .failed)
        XCTAssertEqual(record.rollback, .restored)
        XCTAssertEqual(record.registers.first { $0.registerId == "heating.mode" }?.after, .unsigned(0xFFFF))
    }

    // MARK: defect 12

    /// A 60-register page (r0… at 500) to a device that refuses FC16 and clamps r5 to 5.0 °C, read in
    /// 10-register windows, `onError: rollback`: FC16 500+60 is refused, the FC06 fallback writes window
    /// 1 (r0…r9) and finds the clamp. Only window 1 was written, so only window 1 is rolled back; r10…r59
    /// were never written (`notAttempted`, no `written` in the audit). Before: r10…r59 `rejected`,
    /// audited as written, and 50 FC06 restores to registers nobody asked to change.
    func testARefusalSupersededByTheFallbackStaysOffRegistersNeverWritten() async throws {
        let page = try await capture("long")
        let b = try simulator(Self.blank, ["--refuse-fc16", "--clamp", "505:50"])
        var limits = DeviceLimits()
        limits.maxReadRegisters = 10
        let report = await engine.apply(
            page: page, template: try await engine.archive.load(pageId: "long"), to: target(b, id: "press-b", limits: limits),
            options: ReplayOptions(onError: .rollback), who: "uid:0")
        XCTAssertEqual(report.status, .failed)
        XCTAssertTrue(report.fellBackToFC06)
        let statuses = report.registers.map(\.status)
        XCTAssertEqual(statuses[5], .mismatch)
        XCTAssertEqual(Array(statuses[0..<5] + statuses[6..<10]), Array(repeating: .verified, count: 9))
        XCTAssertEqual(Array(statuses[10...]), Array(repeating: .notAttempted, count: 50), "never written")
        XCTAssertTrue(report.registers[10...].allSatisfy { $0.exceptionCode == nil })
        XCTAssertEqual(report.rollback?.registers.map(\.registerId), (0..<10).map { "r\($0)" }, "only what was written")

        // The device's side: the refused FC16, window 1 word by word, its restore — nothing else.
        let wire = try writes(b)
        XCTAssertEqual(
            wire,
            [
                "WRITE fc=16 unit=1 address=500 count=60 values=" + (0..<60).map { String(100 + $0) }.joined(separator: ",")
                    + " exception=01"
            ]
                + (0..<10).map { "WRITE fc=6 unit=1 address=\(500 + $0) count=1 values=\(100 + $0)" }
                + (0..<10).map { "WRITE fc=6 unit=1 address=\(500 + $0) count=1 values=32767" })
        // r5 cannot be restored past its clamp: the rollback says so, with "not set" values marked.
        XCTAssertEqual(report.rollback?.restored, false)
        let r5 = try XCTUnwrap(report.rollback?.registers.first { $0.registerId == "r5" })
        XCTAssertEqual(r5.status, .mismatch)
        XCTAssertEqual(r5.expectedUnset, true, "restored to the \"not set\" value")
        XCTAssertEqual(r5.actualUnset, false, "holds 5.0 °C")
        let r0 = try XCTUnwrap(report.rollback?.registers.first)
        XCTAssertEqual(r0.expectedUnset, true)
        XCTAssertEqual(r0.actualUnset, true)
        XCTAssertEqual(
            try Mbpoll.readHolding(port: b.port!, unit: 1, address: 500, count: 10),
            [32767, 32767, 32767, 32767, 32767, 50, 32767, 32767, 32767, 32767])

        let records = try await engine.audit.read().records
        let record = try XCTUnwrap(records.last)
        XCTAssertEqual(record.registers.filter { $0.written != nil }.map(\.registerId), (0..<10).map { "r\($0)" })
        XCTAssertEqual(record.registers.filter { $0.rollback != nil }.count, 10)
        XCTAssertTrue(record.registers[10...].allSatisfy { $0.status == .replay(.notAttempted) })
    }

    // MARK: defect 4

    /// One u32 (s.limit @800) whose value the device refuses with exception 03 (`--max-u32 800:100000`,
    /// the template holds 4294959680): a value rejection — `rejected (3)`, the replay failed, nothing
    /// else sent, the words never split; and nothing learned, so a second replay (a legal value) still
    /// writes the value in one frame. Before: the FC16 halved to one word per frame (a torn value live
    /// between them), `succeeded`, and a write limit of 1 learned for the device.
    func testExceptionO3OnOneU32IsARejectionAndItsWordsAreNeverSplit() async throws {
        let page = try await capture("single")
        let b = try simulator(Self.blank, ["--max-u32", "800:100000"])
        let report = await engine.apply(
            page: page, template: try await engine.archive.load(pageId: "single"), to: target(b, id: "press-b"),
            options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .failed)
        XCTAssertEqual(report.registers.map(\.status), [.rejected])
        XCTAssertEqual(report.registers.first?.exceptionCode, 3)
        let first = try writes(b)
        XCTAssertEqual(
            first, ["WRITE fc=16 unit=1 address=800 count=2 values=65535,57920 exception=03"], "one refused frame, never split")
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 800, count: 2), [0xFFFF, 0xFFFF])
        let records = try await engine.audit.read().records
        let record = try XCTUnwrap(records.last)
        XCTAssertEqual(record.result, .failed)
        XCTAssertEqual(record.registers.map(\.status), [.replay(.rejected)])

        // A legal value to the same device: one frame, both words.
        try await recapture("single", values: #"{"s.limit": 90000}"#)
        let again = await engine.apply(
            page: page, template: try await engine.archive.load(pageId: "single"), to: target(b, id: "press-b"),
            options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(again.status, .succeeded, again.reason ?? "")
        let second = Array(try writes(b).dropFirst(first.count))
        XCTAssertEqual(
            second.filter { $0.contains("address=800 ") }, ["WRITE fc=16 unit=1 address=800 count=2 values=1,24464"],
            "the whole value in one frame: \(second)")
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 800, count: 2), [1, 24464])
    }

    /// A merged write (w.a, w.b, w.c: 700+8) refused with exception 03 because of w.b's value
    /// (`--max-u32 702:3000000000`, the template holds 4000000000): halved without ever splitting a
    /// register — 700+4 refused, w.a alone acknowledged, w.b alone refused: w.b is `rejected (3)`, the
    /// replay stops there, w.c is never written. A value rejection explains the refusals, so no shorter
    /// write limit is learned: a second replay (legal values) is one frame of 8. Before: w.b split word by
    /// word (stored torn, then whole: "verified"), w.c in four one-word frames, a limit of 1 learned.
    func testAMergedWriteRefusedWith03IsHalvedWithoutSplittingARegister() async throws {
        let page = try await capture("wide")
        let b = try simulator(Self.blank, ["--max-u32", "702:3000000000"])
        let report = await engine.apply(
            page: page, template: try await engine.archive.load(pageId: "wide"), to: target(b, id: "press-b"),
            options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .failed)
        XCTAssertEqual(report.registers.map(\.status), [.verified, .rejected, .notAttempted])
        XCTAssertEqual(report.registers.map(\.exceptionCode), [nil, 3, nil])
        let a = "1,4464"
        let bWords = "61035,10240"
        let c = "65535,65534,54778,3584"
        let first = try writes(b)
        XCTAssertEqual(
            first,
            [
                "WRITE fc=16 unit=1 address=700 count=8 values=\(a),\(bWords),\(c) exception=03",
                "WRITE fc=16 unit=1 address=700 count=4 values=\(a),\(bWords) exception=03",
                "WRITE fc=16 unit=1 address=700 count=2 values=\(a)",
                "WRITE fc=16 unit=1 address=702 count=2 values=\(bWords) exception=03",
            ])
        XCTAssertEqual(
            try Mbpoll.readHolding(port: b.port!, unit: 1, address: 700, count: 8),
            [1, 4464, 0xFFFF, 0xFFFF, 0x7FFF, 0xFFFF, 0xFFFF, 0xFFFF], "w.b and w.c as they were")

        try await recapture("wide", values: #"{"w.a": 70000, "w.b": 2000000000, "w.c": -5000000000}"#)
        let again = await engine.apply(
            page: page, template: try await engine.archive.load(pageId: "wide"), to: target(b, id: "press-b"),
            options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(again.status, .succeeded, again.reason ?? "")
        XCTAssertEqual(
            Array(try writes(b).dropFirst(first.count)), ["WRITE fc=16 unit=1 address=700 count=8 values=\(a),30517,37888,\(c)"])
    }
}
