import Foundation
import LastsetCore
import LastsetEngine
import ModbusLink
import TestSupport
import XCTest

/// Capture from a reference machine A (libmodbus `ModbusSlave`), replay to machine B (the pymodbus peer,
/// an independent implementation), check B with mbpoll and B's own log of the writes it received.
final class CaptureReplayTests: XCTestCase {
    static let page = PageDefinition(
        id: "heating", title: "Heating",
        identity: [IdentityRegister(registerId: "model", address: 0, type: .string(8))],
        beforeWrite: [WriteStep(address: 1536, value: 6868)],
        afterWrite: [WriteStep(address: 2304, value: 0)],
        registers: [
            RegisterDefinition(registerId: "heating.mode", name: "Mode", address: 100, type: .u16, enum: [0, 1, 2]),
            RegisterDefinition(
                registerId: "heating.setpoint", address: 101, type: .s16, min: -200, max: 900, scale: 0.1, unit: "°C"),
            RegisterDefinition(registerId: "heating.energy", address: 102, type: .u32, wordOrder: .little),
            RegisterDefinition(registerId: "heating.spare", address: 104, type: .u16),
            RegisterDefinition(registerId: "heating.label", address: 110, type: .string(16)),
            RegisterDefinition(registerId: "heating.hysteresis", address: 120, type: .u16, max: 50),
            RegisterDefinition(registerId: "comm.unit", address: 200, type: .u16, clone: false),
            RegisterDefinition(registerId: "heating.hours", address: 201, type: .u32, access: .ro),
        ])

    static func text(_ s: String, bytes: Int) -> [UInt16] {
        var b = Array(s.utf8)
        b += [UInt8](repeating: 0, count: bytes - b.count)
        return [UInt16](bigEndianBytes: b)
    }

    /// Machine A's registers: a configured press with one register left at "not set".
    static let sourceValues: [Int: [UInt16]] = [
        0: text("PRESS-A1", bytes: 8),
        100: [2], 101: [UInt16(bitPattern: -150)], 102: [0xE240, 0x0001],  // 123456, low word first
        104: [0xFFFF], 110: text("Line 3", bytes: 16), 120: [12], 200: [17], 201: [0, 999],
    ]

    /// A blank machine B of the same model: everything at "not set", its own unit id and hours.
    static let blankValues: [Int: [UInt16]] = [
        0: text("PRESS-A1", bytes: 8),
        100: [0xFFFF], 101: [0x7FFF], 102: [0xFFFF, 0xFFFF], 104: [0xFFFF], 110: [UInt16](repeating: 0xFFFF, count: 8),
        120: [0xFFFF], 200: [42], 201: [0, 5],
    ]

    private var dir: URL!
    private var engine: Engine!
    private var source: ModbusSlave!

    override func setUp() async throws {
        dir = try TestPaths.temporaryDirectory(prefix: "engine")
        engine = try Engine(dataDirectory: dir)
        source = try ModbusSlave(listen: .tcp(host: "127.0.0.1", port: 0))
        for (address, words) in Self.sourceValues { source.setHoldingRegisters(address: address, values: words) }
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

    private func machineB(_ options: [String] = [], values: [Int: [UInt16]] = CaptureReplayTests.blankValues) throws -> (
        PymodbusPeer, DeviceTarget
    ) {
        let peer = try pymodbusPeer(values, options)
        return (peer, target(port: peer.port!, id: "press-b"))
    }

    private func captureA() async throws -> CaptureReport {
        let report = await engine.capture(page: Self.page, from: target(port: source.port, id: "press-a"), who: "uid:0")
        XCTAssertTrue(report.archived, "capture failed: \(report.problems) \(report.error ?? "")")
        return report
    }

    func testCaptureFromAReplayToBlankBWritesEveryValidValueInPageOrder() async throws {
        let capture = try await captureA()
        XCTAssertEqual(capture.version, 1)
        XCTAssertEqual(capture.entryCount, 5)
        XCTAssertEqual(capture.requests, 3, "identity 0..3, page 100..120 merged, 200..202: gaps beyond maxGap 8 split")
        XCTAssertEqual(
            Set(capture.skipped.map { "\($0.registerId):\($0.reason.rawValue)" }),
            ["heating.spare:unset", "comm.unit:notCloned", "heating.hours:readOnly"])
        let template = try await engine.archive.load(pageId: "heating")
        XCTAssertEqual(
            template.entries.map(\.registerId),
            ["heating.mode", "heating.setpoint", "heating.energy", "heating.label", "heating.hysteresis"])
        XCTAssertEqual(
            template.entries.map(\.value), [.unsigned(2), .signed(-150), .unsigned(123456), .text("Line 3"), .unsigned(12)])
        XCTAssertEqual(template.source.identity.first?.value, .text("PRESS-A1"))

        let (b, targetB) = try machineB()
        let report = try await engine.apply(page: Self.page, to: targetB, options: ReplayOptions(), who: "uid:1000")
        XCTAssertEqual(report.status, .succeeded, report.reason ?? "")
        XCTAssertEqual(report.registers.map(\.status), Array(repeating: .verified, count: 5))
        XCTAssertEqual(report.afterWrite.map(\.status), [.ok])
        XCTAssertEqual(report.beforeWrite.first?.readBack, 6868, "the unlock write is read back")
        XCTAssertEqual(report.afterWrite.first?.readBack, 0, "the commit write is read back")
        XCTAssertEqual(
            report.registers.map(\.before),
            [
                .unsigned(0xFFFF), .signed(0x7FFF), .unsigned(0xFFFF_FFFF),
                .text(
                    "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"
                ), .unsigned(0xFFFF),
            ])

        // An independent client sees exactly the template's values on B…
        let port = b.port!
        XCTAssertEqual(
            try Mbpoll.readHolding(port: port, unit: 1, address: 100, count: 4), [2, UInt16(bitPattern: -150), 0xE240, 0x0001])
        XCTAssertEqual(try Mbpoll.readHolding(port: port, unit: 1, address: 110, count: 8), Self.text("Line 3", bytes: 16))
        XCTAssertEqual(try Mbpoll.readHolding(port: port, unit: 1, address: 120, count: 1), [12])
        // …and nothing that must not be cloned was touched.
        XCTAssertEqual(try Mbpoll.readHolding(port: port, unit: 1, address: 104, count: 1), [0xFFFF], "unset register written")
        XCTAssertEqual(try Mbpoll.readHolding(port: port, unit: 1, address: 200, count: 1), [42], "clone:false register written")
        XCTAssertEqual(try Mbpoll.readHolding(port: port, unit: 1, address: 201, count: 2), [0, 5], "read-only register written")

        // B received: unlock, the page's runs in page order, commit.
        let writes = try b.writes().map { "\($0.function)@\($0.address)x\($0.count)" }
        XCTAssertEqual(writes, ["6@1536x1", "16@100x4", "16@110x8", "6@120x1", "6@2304x1"])
        XCTAssertEqual(try b.writes().first?.values, [6868])

        let audit = try await engine.audit.read()
        XCTAssertEqual(audit.records.map(\.kind), [.capture, .replay])
        XCTAssertEqual(audit.records.last?.who, "uid:1000")
        XCTAssertEqual(audit.records.last?.result, .succeeded)
        let mode = audit.records.last?.registers.first { $0.registerId == "heating.mode" }
        XCTAssertEqual(mode?.before, .unsigned(0xFFFF))
        XCTAssertEqual(mode?.after, .unsigned(2))
    }

    /// A journal whose replay's outcome is already in the audit log — the daemon stopped between the outcome
    /// record and the journal's removal, or a power cut undid the (unfsynced) removal — is a replay that
    /// finished: recovery drops it without an "interrupted" record or an unverified mark, and records the
    /// success in the device state if that was lost too. (It wrote a false "interrupted" record before.)
    func testAJournalLeftAfterItsOutcomeWasAuditedIsNotAnInterruption() async throws {
        _ = try await captureA()
        let (_, targetB) = try machineB()
        let report = try await engine.apply(page: Self.page, to: targetB, options: ReplayOptions(), who: "uid:1000")
        XCTAssertEqual(report.status, .succeeded, report.reason ?? "")
        let logged = try await engine.audit.read(limit: 10).records
        let outcome = try XCTUnwrap(logged.last { $0.kind == .replay && $0.result == .succeeded })
        let job = try XCTUnwrap(outcome.job)
        // What the removal would have left: the journal with its intent; and a device state that lost the success.
        let intent = ReplayIntent(
            job: job, time: outcome.time.addingTimeInterval(-1), who: outcome.who, pageId: "heating", deviceId: "press-b",
            device: targetB.label, endpoint: targetB.endpoint.description, unit: 1, templateVersion: 1,
            pageHash: outcome.pageHash, identity: outcome.identity, onError: .stop,
            registers: report.registers.map {
                IntentRegister(
                    registerId: $0.registerId, address: $0.address, length: $0.length, expected: $0.expected,
                    expectedData: $0.expectedData)
            })
        // In the database the outcome and the journal's end are one commit; a journal of the release before it
        // (imported as rows) can still be left like this.
        let row = ReplayJournal.IntentRow(intent)
        try await engine.database.write { c in try ReplayJournal.insert(row, on: c) }
        try await engine.deviceState.replaceAll([])
        engine.close()

        let restarted = try Engine(dataDirectory: dir)
        let recovered = await restarted.recoverInterrupted()
        XCTAssertEqual(recovered.count, 0, "a finished replay was recorded as interrupted: \(recovered.map(\.message))")
        let left = try await restarted.journal.leftovers()
        XCTAssertEqual(left.map(\.job), [])
        let after = try await restarted.audit.read(limit: 20).records
        XCTAssertFalse(after.contains { $0.result == .interrupted })
        let state = await restarted.deviceState.state(device: targetB.label, pageId: "heating")
        XCTAssertEqual(state?.applied?.job, job)
        XCTAssertNil(state?.unverified)
        // The values recorded are those written: the same as a replay that ran through records.
        let template = try await restarted.archive.load(pageId: "heating")
        XCTAssertEqual(state?.applied?.entries, template.entries.map(RecordedValue.init))
        XCTAssertEqual(state?.applied?.versionId, template.versionId.id)
    }

    func testInvalidCaptureArchivesNothingAndKeepsThePreviousTemplate() async throws {
        _ = try await captureA()
        source.setHoldingRegisters(address: 100, values: [5])  // not in enum
        source.setHoldingRegisters(address: 101, values: [1000])  // above max 900
        let report = await engine.capture(page: Self.page, from: target(port: source.port, id: "press-a"), who: "uid:0")
        XCTAssertFalse(report.archived)
        XCTAssertEqual(report.problems.map(\.registerId), ["heating.mode", "heating.setpoint"])
        XCTAssertEqual(report.problems.map(\.valueData), ["0005", "03E8"])
        XCTAssertEqual(report.problems[1].value, .signed(1000))
        XCTAssertTrue(report.problems[0].rule.contains("not one of [0, 1, 2]"), report.problems[0].rule)
        XCTAssertTrue(report.problems[1].rule.contains("900"), report.problems[1].rule)
        let latest = try await engine.archive.load(pageId: "heating")
        XCTAssertEqual(latest.version, 1)
        XCTAssertEqual(latest.entries.first?.value, .unsigned(2))
    }

    func testReadErrorOnOneRegisterIsReportedPrecisely() async throws {
        source.faults = SlaveFaults(exceptions: [110: 0x02])
        let report = await engine.capture(page: Self.page, from: target(port: source.port, id: "press-a"), who: "uid:0")
        XCTAssertFalse(report.archived)
        XCTAssertEqual(report.problems.map(\.registerId), ["heating.label"])
        XCTAssertTrue(report.problems[0].rule.contains("exception 02"), report.problems[0].rule)
        do {
            _ = try await engine.archive.load(pageId: "heating")
            XCTFail("an invalid capture archived a template")
        } catch {
            XCTAssertEqual(error, .notFound(pageId: "heating", version: nil))
        }
    }

    func testIdentityMismatchIsRefusedBeforeAnyWrite() async throws {
        _ = try await captureA()
        var values = Self.blankValues
        values[0] = Self.text("MIXER-77", bytes: 8)
        let (b, targetB) = try machineB(values: values)
        let report = try await engine.apply(page: Self.page, to: targetB, options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .refused)
        XCTAssertTrue(report.reason!.contains("MIXER-77"), report.reason!)
        XCTAssertEqual(report.writeFrames, 0)
        XCTAssertEqual(try b.writes().count, 0)
        XCTAssertEqual(report.registers.count, 0)
    }

    /// A template entry whose valueData is short of its register's bytes (hand-made or edited, checksum
    /// recomputed) is refused before any write: it was padded with zeros and written ("123456" on a u32
    /// went out as 0x1234 0x5600); so is one with a byte too many or an odd digit.
    func testAValueDataOfTheWrongLengthIsRefusedBeforeAnyWrite() async throws {
        _ = try await captureA()
        let template = try await engine.archive.load(pageId: "heating")
        let (b, targetB) = try machineB()
        for bad in ["123456", "1234567", "123456789A", ""] {
            var edited = template
            let k = try XCTUnwrap(edited.entries.firstIndex { $0.registerId == "heating.energy" })  // u32
            edited.entries[k].valueData = bad
            let (report, _) = await Replay.run(page: CompiledPage(Self.page), template: edited, to: targetB)
            XCTAssertEqual(report.status, .refused, "valueData \"\(bad)\"")
            XCTAssertTrue(
                report.reason?.contains("heating.energy: valueData \"\(bad)\" is not 4 bytes of hex") ?? false,
                report.reason ?? "")
            XCTAssertEqual(report.writeFrames, 0)
        }
        XCTAssertEqual(try b.writes().count, 0)
    }

    func testDryRunSendsNoWriteAndDiffsAgainstTheTarget() async throws {
        _ = try await captureA()
        var values = Self.blankValues
        values[100] = [2]  // already right
        let (b, targetB) = try machineB(values: values)
        let report = try await engine.apply(page: Self.page, to: targetB, options: ReplayOptions(dryRun: true), who: "uid:0")
        XCTAssertEqual(report.status, .planned)
        XCTAssertEqual(report.writeFrames, 0)
        XCTAssertEqual(try b.writes().count, 0)
        XCTAssertEqual(report.registers.map(\.status), [.unchanged, .differs, .differs, .differs, .differs])
        XCTAssertEqual(report.registers[1].actual, .signed(0x7FFF))
        XCTAssertEqual(
            report.plan.map { "\($0.function.rawValue)@\($0.address)x\($0.count)" }, ["fc16@100x4", "fc16@110x8", "fc06@120x1"])
    }

    /// The heating page is one read of the read plan (100…120), so it is one verification window: its
    /// three writes go out, then the one read; the mismatch stops the replay before anything beyond
    /// that window (here: the commit).
    func testClampedValueIsAMismatchAndTheReplayStops() async throws {
        _ = try await captureA()
        let (b, targetB) = try machineB(["--clamp", "101:100"])  // B clamps the setpoint to 100 (stores min)
        let report = try await engine.apply(page: Self.page, to: targetB, options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .failed)
        let status = Dictionary(uniqueKeysWithValues: report.registers.map { ($0.registerId, $0.status) })
        XCTAssertEqual(status["heating.setpoint"], .mismatch)
        XCTAssertEqual(status["heating.mode"], .verified)
        XCTAssertEqual(status["heating.label"], .verified)
        XCTAssertEqual(status["heating.hysteresis"], .verified)
        let setpoint = report.registers.first { $0.registerId == "heating.setpoint" }!
        XCTAssertEqual(setpoint.expected, .signed(-150))
        XCTAssertNotEqual(setpoint.actual, .signed(-150))
        XCTAssertTrue(report.stoppedAt!.contains("heating.setpoint"), report.stoppedAt!)
        XCTAssertEqual(report.afterWrite.map(\.status), [.notAttempted])
        let addresses = try b.writes().map(\.address)
        XCTAssertEqual(addresses, [1536, 100, 110, 120], "the window is written, then nothing more: no commit")
    }

    func testRefusedFC16FallsBackToFC06() async throws {
        _ = try await captureA()
        let (b, targetB) = try machineB(["--refuse-fc16"])
        let report = try await engine.apply(page: Self.page, to: targetB, options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .succeeded, report.reason ?? "")
        XCTAssertTrue(report.fellBackToFC06)
        let accepted = try b.writes().filter { $0.function == 6 }.map(\.address)
        XCTAssertEqual(accepted, [1536] + Array(100...103) + Array(110...117) + [120, 2304])
        XCTAssertEqual(
            try Mbpoll.readHolding(port: b.port!, unit: 1, address: 100, count: 4), [2, UInt16(bitPattern: -150), 0xE240, 0x0001])
    }

    func testExceptionAtRegisterKStopsWithEarlierVerifiedAndLaterNotAttempted() async throws {
        _ = try await captureA()
        let (b, targetB) = try machineB(["--exception", "110:2"])
        let report = try await engine.apply(page: Self.page, to: targetB, options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .failed)
        XCTAssertEqual(report.registers.map(\.status), [.verified, .verified, .verified, .rejected, .notAttempted])
        XCTAssertEqual(report.registers[3].exceptionCode, 2)
        XCTAssertTrue(report.stoppedAt!.contains("heating.label"), report.stoppedAt!)
        XCTAssertFalse(try b.writes().contains { $0.address == 120 || $0.address == 2304 })
    }

    func testContinueGoesOnAfterARejectedRegister() async throws {
        _ = try await captureA()
        let (_, targetB) = try machineB(["--exception", "110:2"])
        let report = try await engine.apply(
            page: Self.page, to: targetB, options: ReplayOptions(onError: .continue), who: "uid:0")
        XCTAssertEqual(report.status, .failed)
        XCTAssertEqual(report.registers.map(\.status), [.verified, .verified, .verified, .rejected, .verified])
        XCTAssertEqual(report.afterWrite.map(\.status), [.notAttempted], "afterWrite runs only when everything verified")
    }

    func testRollbackRestoresTheTargetsPreviousValues() async throws {
        _ = try await captureA()
        var values = Self.blankValues
        values[100] = [1]
        values[101] = [100]
        values[102] = [7, 0]
        let (b, targetB) = try machineB(["--clamp", "101:100"], values: values)  // B clamps the setpoint
        let report = try await engine.apply(
            page: Self.page, to: targetB, options: ReplayOptions(onError: .rollback), who: "uid:0")
        XCTAssertEqual(report.status, .failed)
        XCTAssertEqual(report.registers.map(\.status), [.verified, .mismatch, .verified, .verified, .verified])
        XCTAssertEqual(report.rollback?.restored, true, "\(String(describing: report.rollback))")
        XCTAssertEqual(
            report.rollback?.registers.map(\.registerId),
            ["heating.mode", "heating.setpoint", "heating.energy", "heating.label", "heating.hysteresis"])
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 100, count: 4), [1, 100, 7, 0])
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 110, count: 1), [0xFFFF])
        XCTAssertFalse(try b.writes().contains { $0.address == 2304 }, "no commit after a rollback")
    }

    func testRollbackRefusesWhenTheTargetCannotBeSnapshotted() async throws {
        _ = try await captureA()
        let (b, targetB) = try machineB(["--exception", "110:2"])
        let report = try await engine.apply(
            page: Self.page, to: targetB, options: ReplayOptions(onError: .rollback), who: "uid:0")
        XCTAssertEqual(report.status, .refused)
        XCTAssertTrue(report.reason!.contains("heating.label"), report.reason!)
        XCTAssertEqual(try b.writes().count, 0)
    }

    func testTemplateThatNoLongerFitsThePageIsRefused() async throws {
        _ = try await captureA()
        var changed = Self.page
        changed.registers[1].max = 100  // the archived -150 … still fits; make it not fit:
        changed.registers[1].min = 0
        let (b, targetB) = try machineB()
        let report = try await engine.apply(page: changed, to: targetB, options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .refused)
        XCTAssertTrue(report.reason!.contains("heating.setpoint"), report.reason!)
        XCTAssertEqual(try b.writes().count, 0)
    }

    func testReplayOverTheLibmodbusSlaveRecordsTheOrderOfWrites() async throws {
        _ = try await captureA()
        let b = try ModbusSlave(listen: .tcp(host: "127.0.0.1", port: 0))
        for (address, words) in Self.blankValues { b.setHoldingRegisters(address: address, values: words) }
        try b.start()
        defer { b.stop() }
        let report = try await engine.apply(
            page: Self.page, to: target(port: b.port, id: "sim-b"), options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .succeeded, report.reason ?? "")
        XCTAssertEqual(
            b.writes.map { "\($0.function)@\($0.address)x\($0.count)" },
            ["6@1536x1", "16@100x4", "16@110x8", "6@120x1", "6@2304x1"])
        XCTAssertEqual(b.holdingRegisters(address: 100, count: 4), [2, UInt16(bitPattern: -150), 0xE240, 0x0001])
        XCTAssertEqual(b.holdingRegisters(address: 200, count: 3), [42, 0, 5])
    }
}

extension CaptureReplayTests {
    /// A device that drops the connection every few requests: the link reconnects and retries, and the
    /// replay still verifies every value (never a wrong one).
    func testDroppedConnectionsAreRetriedAndEveryValueVerified() async throws {
        _ = try await captureA()
        let peer = try PymodbusPeer.startTCP(options: ["--drop-after", "3"], values: Self.blankValues)
        defer { peer.stop() }
        let report = try await engine.apply(
            page: Self.page, to: target(port: peer.port!, id: "press-b"), options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .succeeded, report.reason ?? "")
        XCTAssertEqual(report.registers.map(\.status), Array(repeating: .verified, count: 5))
        XCTAssertEqual(
            try Mbpoll.readHolding(port: peer.port!, unit: 1, address: 100, count: 4),
            [2, UInt16(bitPattern: -150), 0xE240, 0x0001])
    }

    /// A device that stops answering: the replay fails at a named register, nothing after it is written.
    func testTimeoutDuringReplayFailsAtANamedRegister() async throws {
        _ = try await captureA()
        let peer = try PymodbusPeer.startTCP(options: ["--delay", "110:800"], values: Self.blankValues)
        defer { peer.stop() }
        var limits = DeviceLimits()
        limits.timeout = .milliseconds(200)
        limits.retries = 1
        let report = try await engine.apply(
            page: Self.page, to: target(port: peer.port!, id: "press-b", limits: limits), options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .failed)
        let status = Dictionary(uniqueKeysWithValues: report.registers.map { ($0.registerId, $0.status) })
        // The window's read covers 110, which the device keeps delaying: what was acknowledged stays
        // unverified, the write that timed out is in doubt (it may have been stored).
        XCTAssertEqual(status["heating.mode"], .unverified)
        XCTAssertEqual(status["heating.energy"], .unverified)
        XCTAssertEqual(status["heating.label"], .inDoubt)
        XCTAssertEqual(status["heating.hysteresis"], .notAttempted)
        XCTAssertEqual(report.lastConfirmed, "heating.energy")
        XCTAssertEqual(report.firstInDoubt, "heating.label")
        XCTAssertTrue(report.stoppedAt?.contains("heating.label") ?? false, report.stoppedAt ?? "")
        XCTAssertFalse(try peer.writes().contains { $0.address == 2304 })
    }
}

extension CaptureReplayTests {
    /// A page of 100 contiguous registers replayed to a device that reads at most 40 per request, with
    /// FC16 runs longer than that, and again with FC06 word by word (u32 words kept in one group).
    func testReplayToADeviceWithSmallReadLimitsVerifiesEverything() async throws {
        let registers = (0..<50).map { i in
            RegisterDefinition(registerId: "big.r\(i)", address: 1000 + 2 * i, type: i % 2 == 0 ? .u32 : .s32)
        }
        let page = PageDefinition(id: "big", registers: registers)
        var sourceWords: [UInt16] = []
        for i in 0..<50 { sourceWords += [UInt16(i), UInt16(0x100 + i)] }
        source.setHoldingRegisters(address: 1000, values: sourceWords)
        let capture = await engine.capture(page: page, from: target(port: source.port, id: "press-a"), who: "uid:0")
        XCTAssertTrue(capture.archived, "\(capture.problems)")
        for writeFunction in [WriteFunction.auto, .fc06] {
            let peer = try PymodbusPeer.startTCP(
                options: ["--max-read", "40"], values: [1000: [UInt16](repeating: 0xFFFF, count: 100)])
            defer { peer.stop() }
            var limits = DeviceLimits()
            limits.maxReadRegisters = 40
            limits.maxWriteRegisters = 60
            limits.writeFunction = writeFunction
            let report = try await engine.apply(
                page: page, to: target(port: peer.port!, id: "small", limits: limits), options: ReplayOptions(), who: "uid:0")
            XCTAssertEqual(report.status, .succeeded, "\(writeFunction): \(report.reason ?? "")")
            XCTAssertEqual(report.count(.verified), 50, "\(writeFunction)")
            let read = try stride(from: 0, to: 100, by: 40).flatMap {
                try Mbpoll.readHolding(port: peer.port!, unit: 1, address: 1000 + $0, count: min(40, 100 - $0))
            }
            XCTAssertEqual(read, sourceWords)
            let writes = try peer.writes()
            XCTAssertEqual(writes.count, writeFunction == .fc06 ? 100 : 2, "\(writeFunction)")
        }
    }
}

extension CaptureReplayTests {
    /// Unit 0 is broadcast: a replay there is refused before any frame (it would reach every device).
    func testReplayToTheBroadcastUnitIsRefused() async throws {
        _ = try await captureA()
        let (b, targetB) = try machineB()
        var broadcast = targetB
        broadcast.unit = 0
        let report = try await engine.apply(page: Self.page, to: broadcast, options: ReplayOptions(), who: "uid:0")
        XCTAssertEqual(report.status, .refused)
        XCTAssertTrue(report.reason?.contains("broadcast") ?? false, report.reason ?? "")
        XCTAssertEqual(report.writeFrames, 0)
        XCTAssertEqual(try b.writes().count, 0)
    }
}
