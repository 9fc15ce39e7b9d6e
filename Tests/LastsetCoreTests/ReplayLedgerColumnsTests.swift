import XCTest

@testable import LastsetCore

/// The ledger kept as columns (words in flat arrays, hex made on demand) gives what the ledger of one
/// struct of strings per register gave (`ReferenceLedger`, its code before the columns) for a mix of
/// events: fates, statuses, report lines, rollback lines and audit registers.
final class ReplayLedgerColumnsTests: XCTestCase {
    private static func reg(
        _ id: String, _ address: Int, _ length: Int, _ expectedData: String, before: String? = nil
    ) -> IntentRegister {
        IntentRegister(
            registerId: id, address: address, length: length, expected: .unsigned(UInt64(address)),
            expectedData: expectedData, before: before.map { _ in .unsigned(1) }, beforeData: before)
    }

    private static let registers: [IntentRegister] = [
        reg("a", 10, 1, "0007", before: "0001"),
        reg("b", 11, 2, "0000000A", before: "0000000A"),
        reg("c", 13, 1, "00ff", before: "00FF"),  // lower-case expected data, as a hand-edited journal might have
        reg("d", 14, 4, "41424344454647FF"),  // no "before": the snapshot could not read it
        reg("e", 18, 1, "FFFF", before: "FFFF"),
    ]

    private static func intent(_ registers: [IntentRegister] = registers, onError: OnError = .stop) -> ReplayEvent {
        ReplayEvent(
            .intent,
            intent: ReplayIntent(
                job: "j", time: Date(timeIntervalSince1970: 0), who: "uid:0", pageId: "p", deviceId: "d", device: "d",
                endpoint: "tcp://h:1", unit: 1, templateVersion: 1, pageHash: "h", identity: [], onError: onError,
                registers: registers))
    }
    private static func req(_ ids: [String], _ address: Int, _ count: Int, _ f: WriteRequest.Function = .fc16) -> PlannedRequest {
        PlannedRequest(function: f, address: address, count: count, registerIds: ids)
    }
    private static func write(_ r: PlannedRequest) -> ReplayEvent { ReplayEvent(.write, request: r) }
    private static func answer(
        _ a: WriteAnswer, _ r: PlannedRequest, frames: Int = 1, code: Int? = nil, message: String? = nil
    ) -> ReplayEvent {
        ReplayEvent(.answer, request: r, answer: a, frames: frames, exceptionCode: code, message: message)
    }
    private static func check(_ pairs: [(String, String?)], final: Bool = false, message: String? = nil) -> ReplayEvent {
        ReplayEvent(
            final ? .finalCheck : .check,
            checks: pairs.map { JournalCheck(registerId: $0.0, data: $0.1, message: $0.1 == nil ? message : nil) })
    }

    /// Event sequences: all written and verified; mismatches, odd hex, failed reads; doubt, refusals,
    /// FC06 re-planning; a final pass that differs; a rollback; ids out of order and unknown.
    private static let sequences: [(name: String, events: [ReplayEvent])] = {
        let all = req(["a", "b", "c", "d", "e"], 10, 9)
        let ab = req(["a", "b"], 10, 3)
        let cde = req(["c", "d", "e"], 13, 6)
        return [
            ("nothing", [intent()]),
            ("refused before the intent", []),
            (
                "all verified",
                [
                    intent(), write(all), answer(.acknowledged, all),
                    check([("a", "0007"), ("b", "0000000A"), ("c", "00FF"), ("d", "41424344454647FF"), ("e", "FFFF")]),
                    check(
                        [("a", "0007"), ("b", "0000000A"), ("c", "00FF"), ("d", "41424344454647FF"), ("e", "FFFF")], final: true),
                    ReplayEvent(.end, status: .succeeded),
                ]
            ),
            (
                "mismatch, odd hex, failed reads",
                [
                    intent(), write(ab), answer(.acknowledged, ab), write(cde), answer(.acknowledged, cde),
                    check([("a", "0008"), ("b", "0000000a"), ("c", "00ff"), ("d", nil), ("e", "FFF")], message: "timeout"),
                    check([("a", "0007"), ("b", nil), ("c", "ZZZZ"), ("d", "41424344454647FF"), ("e", "ffff")], final: true),
                ]
            ),
            (
                "doubt, refusal, FC06 fallback",
                [
                    intent(), write(ab), answer(.noAnswer, ab, frames: 3, message: "timeout"),
                    check([("a", "0007"), ("b", "00000001")]),
                    write(cde), answer(.rejected, cde, code: 1, message: "illegal function"),
                    ReplayEvent(.replan, request: cde, requests: [req(["c"], 13, 1, .fc06)], message: "FC06 fallback"),
                    write(req(["c"], 13, 1, .fc06)), answer(.acknowledged, req(["c"], 13, 1, .fc06)),
                    write(req(["d"], 14, 1, .fc06)), answer(.acknowledged, req(["d"], 14, 1, .fc06)),
                    write(req(["d"], 15, 1, .fc06)),
                    answer(.notSent, req(["d"], 15, 1, .fc06), frames: 0, message: "no connection"),
                    check([("c", "00FF"), ("d", "4142434445464700")]),
                    ReplayEvent(.end, status: .failed),
                ]
            ),
            (
                "changed later, then rolled back",
                [
                    intent(onError: .rollback), write(all), answer(.acknowledged, all),
                    check([("a", "0007"), ("b", "0000000A"), ("c", "00FF"), ("d", "41424344454647FF"), ("e", "FFFF")]),
                    check(
                        [("a", "0009"), ("b", "0000000A"), ("c", "00FF"), ("d", nil), ("e", "FFFF")], final: true, message: "gone"
                    ),
                    ReplayEvent(.restore, request: ab, answer: .acknowledged, frames: 1),
                    ReplayEvent(.restore, request: cde, answer: .noAnswer, frames: 2, message: "timeout"),
                    ReplayEvent(.restore, request: cde, answer: .acknowledged, frames: 1),
                    ReplayEvent(
                        .restoreCheck,
                        checks: [
                            JournalCheck(registerId: "a", data: "0001"), JournalCheck(registerId: "b", data: "0000000B"),
                            JournalCheck(registerId: "c", data: nil, message: "timeout"),
                            JournalCheck(registerId: "e", data: "FFFF"),
                        ]),
                    ReplayEvent(.end, status: .failed),
                ]
            ),
            (
                "ids out of order, repeated and unknown",
                [
                    intent(), write(cde), answer(.acknowledged, cde), write(req(["zz", "a"], 10, 1)),
                    answer(.acknowledged, req(["zz", "a"], 10, 1)),
                    check([("e", "FFFF"), ("c", "00FF"), ("zz", "0001"), ("a", "0007")]),
                    check([("a", "0007"), ("a", "0008")], final: true),
                ]
            ),
            (
                "registered again",
                [
                    intent(), write(all), answer(.acknowledged, all), check([("a", "0007")]),
                    intent(
                        registers.map {
                            var r = $0
                            r.expectedData = "0001"
                            return r
                        }),
                    write(ab), answer(.acknowledged, ab), check([("a", "0001")]),
                ]
            ),
            (
                "other registers",
                [
                    intent(), write(all), answer(.acknowledged, all), intent([reg("x", 1, 1, "0001"), reg("x", 2, 1, "0002")]),
                    write(req(["x"], 1, 1)), answer(.acknowledged, req(["x"], 1, 1)), check([("x", "0001")]),
                ]
            ),
        ]
    }()

    private let decodeWords: (Int, UnsafeBufferPointer<UInt16>) -> RegisterValue = { i, w in
        .unsigned(UInt64(i) << 48 | UInt64(w.reduce(0) { $0 &* 31 &+ UInt64($1) }))
    }
    private let decode: (String, [UInt16]) -> RegisterValue = { id, w in
        .text(id + ":" + w.map(String.init).joined(separator: ","))
    }

    func testColumnsAgreeWithTheStructPerRegisterLedger() {
        for (name, events) in Self.sequences {
            let new = ReplayLedger(events: events)
            let old = ReferenceLedger(events: events)
            XCTAssertEqual(new.fates, old.fates, name)
            XCTAssertEqual(new.count, old.fates.count, name)
            XCTAssertEqual(new.writeFrames, old.writeFrames, name)
            XCTAssertEqual(new.acknowledgedRegisters, old.acknowledgedRegisters, name)
            XCTAssertEqual(new.ended, old.ended, name)
            XCTAssertEqual(new.rolledBack, old.rolledBack, name)
            XCTAssertEqual(new.intent, old.intent, name)
            XCTAssertEqual(new.touchedIndices, old.touchedIndices, name)
            XCTAssertEqual(new.lastConfirmed, old.lastConfirmed, name)
            XCTAssertEqual(new.firstInDoubt, old.firstInDoubt, name)
            XCTAssertEqual(new.changedLater, old.changedLater, name)
            for id in ["a", "b", "c", "d", "e", "x", "zz"] {
                XCTAssertEqual(new.index(of: id), old.index(of: id), "\(name) \(id)")
                XCTAssertEqual(new.fate(id), old.fate(id), "\(name) \(id)")
            }
            for dry in [false, true] {
                XCTAssertEqual(new.statuses(dryRun: dry), old.statuses(dryRun: dry), "\(name) dry \(dry)")
                XCTAssertEqual(
                    new.results(dryRun: dry, decodeWords: decodeWords, beforeUnset: { $1.allSatisfy { $0 == 0xFFFF } }),
                    old.results(dryRun: dry, decodeWords: decodeWords, beforeUnset: { $1.allSatisfy { $0 == 0xFFFF } }),
                    "\(name) dry \(dry)")
                XCTAssertEqual(
                    new.results(dryRun: dry, decodeWords: decodeWords), old.results(dryRun: dry, decodeWords: decodeWords),
                    "\(name) dry \(dry)")
                XCTAssertEqual(
                    new.auditRegisters(dryRun: dry, decode: decode), old.auditRegisters(dryRun: dry, decode: decode),
                    "\(name) dry \(dry)")
                // The report's lines and rollback, made with the same decoding, give the same audit registers.
                let lines = new.results(dryRun: dry, decodeWords: { i, w in decode(new.registerId(at: i), Array(w)) })
                XCTAssertEqual(
                    new.auditRegisters(dryRun: dry, report: (lines, new.rollbackResults(decode: decode)), decode: decode),
                    old.auditRegisters(dryRun: dry, decode: decode), "\(name) dry \(dry), from the report")
                for (i, f) in old.fates.enumerated() {
                    XCTAssertEqual(new.status(at: i, dryRun: dry), old.status(of: f, dryRun: dry), "\(name) \(i)")
                    XCTAssertEqual(new.status(of: f, dryRun: dry), old.status(of: f, dryRun: dry), "\(name) \(i)")
                    XCTAssertEqual(
                        new.result(of: f, dryRun: dry, decodeWords: { decodeWords(i, $0) }),
                        old.result(of: f, dryRun: dry, decodeWords: { decodeWords(i, $0) }), "\(name) \(i)")
                    XCTAssertEqual(new.touched(f), old.touched(f), "\(name) \(i)")
                }
            }
            XCTAssertEqual(new.rollbackResults(decode: decode), old.rollbackResults(decode: decode), name)
            XCTAssertEqual(
                new.intentRegisters,
                old.fates.map {
                    IntentRegister(
                        registerId: $0.registerId, address: $0.address, length: $0.length, expected: $0.expected,
                        expectedData: $0.expectedData, before: $0.before, beforeData: $0.beforeData)
                }, name)
        }
    }

    /// The replay's own path — registered from words, "before" and read-backs recorded from words, no
    /// events for them — gives the ledger the events (`register` of intent registers, `.check` and
    /// `.finalCheck` of hex) give.
    func testRecordingFromWordsIsFoldingTheEvents() {
        let registers = Self.registers.map { r -> IntentRegister in
            var r = r
            r.expectedData = r.expectedData.uppercased()  // the replay's expected words are its own hex
            return r
        }
        func words(_ hex: String?) -> [UInt16]? { hex.flatMap { [UInt16](valueDataHex: $0) } }
        let checks: [(String, String?)] = [
            ("a", "0007"), ("b", "00000001"), ("c", nil), ("d", "41424344454647FF"), ("e", "FFFF"),
        ]
        let finals: [(String, String?)] = [("a", "0009"), ("b", "00000001"), ("c", "00FF"), ("d", nil), ("e", "FFFF")]
        let all = Self.req(["a", "b", "c", "d", "e"], 10, 9)

        var fast = ReplayLedger()
        var flat: [UInt16] = []
        var starts: [Int] = []
        for r in registers {
            starts.append(flat.count)
            flat += words(r.expectedData)!
        }
        fast.register(
            uniqueIds: registers.map(\.registerId), addresses: registers.map(\.address), lengths: registers.map(\.length),
            expected: registers.map(\.expected), expectedData: registers.map(\.expectedData), expectedWords: flat,
            wordStarts: starts)
        for (i, r) in registers.enumerated() {
            if let w = words(r.beforeData) {
                w.withUnsafeBufferPointer { fast.recordBefore(at: i, value: r.before, words: $0) }
            } else {
                fast.recordBefore(at: i, value: nil, words: nil)
            }
        }
        fast.record(Self.write(all))
        fast.record(Self.answer(.acknowledged, all))
        for (final, list) in [(false, checks), (true, finals)] {
            for (i, c) in list.enumerated() {
                if let w = words(c.1) {
                    w.withUnsafeBufferPointer { fast.recordCheck(at: i, words: $0, final: final) }
                } else {
                    fast.recordCheck(at: i, words: nil, message: "timeout", final: final)
                }
            }
        }

        let events = [
            Self.write(all), Self.answer(.acknowledged, all), Self.check(checks, message: "timeout"),
            Self.check(finals, final: true, message: "timeout"),
        ]
        var folded = ReplayLedger()
        folded.register(registers)
        var reference = ReferenceLedger()
        reference.register(registers)
        for e in events {
            folded.record(e)
            reference.record(e)
        }
        XCTAssertEqual(fast.fates, folded.fates)
        XCTAssertEqual(fast.fates, reference.fates)
        XCTAssertEqual(fast.intentRegisters, registers)
        XCTAssertEqual(fast.results(decodeWords: decodeWords), reference.results(decodeWords: decodeWords))
        XCTAssertEqual(fast.auditRegisters(decode: decode), reference.auditRegisters(decode: decode))
        XCTAssertEqual(fast.statuses(), reference.statuses())
        XCTAssertEqual(fast.statuses(), [.changedLater, .mismatch, .unverified, .verified, .verified])
        XCTAssertEqual((0..<fast.count).map { fast.checkDiffers(at: $0) }, [false, true, false, false, false])
        XCTAssertEqual(fast.index(of: "d"), 3)
        XCTAssertNil(fast.index(of: "zz"))
    }
}
