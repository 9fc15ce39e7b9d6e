import XCTest

@testable import LastsetCore

/// The fold of a replay's journal: each register's status from the transitions it went through.
final class ReplayLedgerTests: XCTestCase {
    private let r = IntentRegister(
        registerId: "r", address: 10, length: 2, expected: .unsigned(7), expectedData: "00000007",
        before: .unsigned(1), beforeData: "00000001")
    private func request(_ address: Int = 10, _ count: Int = 2, _ function: WriteRequest.Function = .fc16) -> PlannedRequest {
        PlannedRequest(function: function, address: address, count: count, registerIds: ["r"])
    }
    private func intent() -> ReplayEvent {
        ReplayEvent(
            .intent,
            intent: ReplayIntent(
                job: "j", time: Date(timeIntervalSince1970: 0), who: "uid:0", pageId: "p", deviceId: "d", device: "d",
                endpoint: "tcp://h:1", unit: 1, templateVersion: 1, pageHash: "h", identity: [], onError: .stop, registers: [r]))
    }
    private func answer(_ a: WriteAnswer, _ req: PlannedRequest? = nil, frames: Int = 1) -> ReplayEvent {
        ReplayEvent(.answer, request: req ?? request(), answer: a, frames: frames)
    }
    private func check(_ data: String?, final: Bool = false) -> ReplayEvent {
        ReplayEvent(final ? .finalCheck : .check, checks: [JournalCheck(registerId: "r", data: data)])
    }

    func testStatusTable() {
        let w = ReplayEvent(.write, request: request())
        let table: [(events: [ReplayEvent], status: RegisterStatus, line: UInt)] = [
            ([], .notAttempted, #line),
            ([w], .inDoubt, #line),  // killed after sending: the crash record's view
            ([w, answer(.acknowledged)], .unverified, #line),
            ([w, answer(.acknowledged), check("00000007")], .verified, #line),
            ([w, answer(.acknowledged), check("00000005")], .mismatch, #line),
            ([w, answer(.acknowledged), check(nil)], .unverified, #line),
            ([w, answer(.acknowledged), check("00000007"), check("0000FFFF", final: true)], .changedLater, #line),
            ([w, answer(.acknowledged), check("00000007"), check(nil, final: true)], .verified, #line),
            ([w, answer(.rejected)], .rejected, #line),
            ([w, answer(.notSent, frames: 0)], .failed, #line),
            ([w, answer(.noAnswer)], .inDoubt, #line),
            ([w, answer(.noAnswer), check("00000007")], .verified, #line),  // the read-back settles the doubt
            ([w, answer(.noAnswer), check("00000001")], .inDoubt, #line),
            // FC16 refused, re-planned as FC06 word by word.
            (
                [
                    w, answer(.rejected), answer(.acknowledged, request(10, 1, .fc06)),
                    answer(.acknowledged, request(11, 1, .fc06)),
                    check("00000007"),
                ], .verified, #line
            ),
            // The first word acknowledged, the second never answered.
            ([answer(.acknowledged, request(10, 1, .fc06)), answer(.noAnswer, request(11, 1, .fc06))], .inDoubt, #line),
        ]
        for c in table {
            let ledger = ReplayLedger(events: [intent()] + c.events)
            XCTAssertEqual(ledger.status(of: ledger.fates[0]), c.status, line: c.line)
            // The running count agrees with a scan of the fates.
            XCTAssertEqual(
                ledger.acknowledgedRegisters, ledger.fates.filter { $0.wordsAcknowledged >= $0.length }.count, line: c.line)
        }
    }

    func testCountsNamesAndRollback() {
        let events: [ReplayEvent] = [
            intent(), ReplayEvent(.write, request: request()), answer(.noAnswer, frames: 3),
            ReplayEvent(.restore, request: request(), answer: .acknowledged, frames: 1),
            ReplayEvent(.restoreCheck, checks: [JournalCheck(registerId: "r", data: "00000001")]),
        ]
        let ledger = ReplayLedger(events: events)
        XCTAssertEqual(ledger.writeFrames, 4, "retries and restores counted")
        XCTAssertEqual(ledger.firstInDoubt, "r")
        XCTAssertNil(ledger.lastConfirmed)
        let rollback = ledger.rollbackResults { _, w in .unsigned(UInt64(w.last ?? 0)) }
        XCTAssertEqual(rollback?.restored, true)
        let audit = ledger.auditRegisters { _, w in .unsigned(UInt64(w.last ?? 0)) }
        XCTAssertEqual(audit.first?.status, .replay(.inDoubt))
        XCTAssertEqual(audit.first?.written, .unsigned(7))
        XCTAssertEqual(audit.first?.rollback, AuditRollback(restored: .unsigned(1), readBack: .unsigned(1), status: .verified))
        XCTAssertEqual(audit.first?.after, .unsigned(1))
    }

    /// Lookups by id go through a hint (the next register in page order) and fall back to the index:
    /// events out of order, repeated ids and a second `register` with other ids fold the same.
    func testLookupsOutOfOrderRepeatedAndReRegistered() {
        func reg(_ id: String, _ address: Int) -> IntentRegister {
            IntentRegister(registerId: id, address: address, length: 1, expected: .unsigned(1), expectedData: "0001")
        }
        func ack(_ ids: [String], _ address: Int) -> ReplayEvent {
            ReplayEvent(
                .answer, request: PlannedRequest(function: .fc16, address: address, count: ids.count, registerIds: ids),
                answer: .acknowledged, frames: 1)
        }
        var ledger = ReplayLedger()
        ledger.register([reg("a", 1), reg("b", 2), reg("c", 3)])
        ledger.record(ack(["c"], 3))
        ledger.record(ack(["a", "b"], 1))
        ledger.record(
            ReplayEvent(
                .check, checks: [JournalCheck(registerId: "b", data: "0001"), JournalCheck(registerId: "a", data: "0002")]))
        ledger.record(ReplayEvent(.check, checks: [JournalCheck(registerId: "c", data: "0001")]))
        XCTAssertEqual(ledger.statuses(), [.mismatch, .verified, .verified])
        XCTAssertEqual(ledger.fates.map { ledger.status(of: $0) }, ledger.statuses())
        XCTAssertEqual(ledger.touchedIndices, [0, 1, 2])
        XCTAssertEqual(ledger.index(of: "b"), 1)
        XCTAssertEqual(ledger.fate("c")?.check?.data, "0001")
        XCTAssertNil(ledger.index(of: "zz"))

        // Other registers: the index is rebuilt, nothing of the old fates survives.
        ledger.register([reg("x", 5), reg("a", 1)])
        XCTAssertEqual(ledger.index(of: "a"), 1)
        XCTAssertNil(ledger.index(of: "b"))
        ledger.record(ack(["a"], 1))
        XCTAssertEqual(ledger.statuses(), [.notAttempted, .unverified])
        XCTAssertEqual(ledger.touchedIndices, [1])

        // A repeated id: every lookup finds the first, as the index does.
        var twice = ReplayLedger()
        twice.register([reg("a", 1), reg("a", 2)])
        twice.record(ack(["a"], 1))
        twice.record(ack(["a"], 1))
        XCTAssertEqual(twice.fates.map(\.wordsAcknowledged), [2, 0])
    }

    /// The in-place decode of a line's value gives what the array decode gives.
    func testResultDecodesInPlaceLikeTheArrayDecode() {
        let w = ReplayEvent(.write, request: request())
        for events in [
            [intent(), w, answer(.acknowledged), check("00000007")], [intent(), w, answer(.acknowledged), check("0000000")],
            [intent(), w, answer(.acknowledged), check(nil)], [intent(), w, answer(.acknowledged), check("ZZ000007")],
        ] {
            let ledger = ReplayLedger(events: events)
            let f = ledger.fates[0]
            let viaArray = ledger.result(f) { .unsigned(UInt64($0.reduce(0) { $0 << 16 | UInt64($1) })) }
            let inPlace = ledger.result(of: f, decodeWords: { .unsigned(UInt64($0.reduce(0) { $0 << 16 | UInt64($1) })) })
            XCTAssertEqual(viaArray, inPlace)
        }
        XCTAssertEqual(
            ReplayLedger(events: [intent(), w, answer(.acknowledged), check("00000007")]).result(
                ReplayLedger(events: [intent(), w, answer(.acknowledged), check("00000007")]).fates[0]
            ) { .unsigned(UInt64($0.count)) }.actual, .unsigned(2))
    }

    /// The whole report in one pass gives the lines one at a time would, plus "before" = unset.
    func testResultsInOnePassAgreeWithOneAtATime() {
        let w = ReplayEvent(.write, request: request())
        for (events, dry) in [
            ([intent(), w, answer(.acknowledged), check("00000007")], false),
            ([intent(), w, answer(.noAnswer)], false), ([intent(), w, answer(.acknowledged), check("00000009")], false),
            ([intent()], true), ([intent(), w, answer(.acknowledged), check("00000007"), check("00000008", final: true)], false),
        ] {
            let ledger = ReplayLedger(events: events)
            let decode: (UnsafeBufferPointer<UInt16>) -> RegisterValue = {
                .unsigned(UInt64($0.reduce(0) { $0 << 16 | UInt64($1) }))
            }
            let lines = ledger.results(dryRun: dry, decodeWords: { decode($1) }, beforeUnset: { $1.elementsEqual([0, 1]) })
            var one = ledger.result(of: ledger.fates[0], dryRun: dry, decodeWords: decode)
            XCTAssertNil(one.beforeUnset)
            one.beforeUnset = true  // r's before is 00000001
            XCTAssertEqual(lines, [one])
            XCTAssertEqual(ledger.results(dryRun: dry, decodeWords: { decode($1) }).first?.beforeUnset, nil)
        }
    }

    /// The audit record's values: read-back from the verification read, after from the final pass
    /// (values the report line decoded already are reused, so each case checks both paths).
    func testAuditValuesFromCheckAndFinalPass() {
        let w = ReplayEvent(.write, request: request())
        let decode: (String, [UInt16]) -> RegisterValue = { _, words in
            .unsigned(UInt64(words.reduce(0) { $0 << 16 | UInt64($1) }))
        }
        let table: [(events: [ReplayEvent], readBack: RegisterValue?, after: RegisterValue?, line: UInt)] = [
            ([intent(), w, answer(.acknowledged), check("00000007")], .unsigned(7), .unsigned(7), #line),
            (
                [intent(), w, answer(.acknowledged), check("00000007"), check("00000007", final: true)], .unsigned(7),
                .unsigned(7), #line
            ),
            (
                [intent(), w, answer(.acknowledged), check("00000007"), check("0000FFFF", final: true)], .unsigned(7),
                .unsigned(0xFFFF), #line
            ),
            (
                [intent(), w, answer(.acknowledged), check("00000005"), check("00000007", final: true)], .unsigned(5),
                .unsigned(7), #line
            ),
            ([intent(), w, answer(.acknowledged), check(nil), check("00000003", final: true)], nil, .unsigned(3), #line),
            ([intent(), w, answer(.acknowledged)], nil, nil, #line),
        ]
        for c in table {
            let audit = ReplayLedger(events: c.events).auditRegisters(decode: decode)
            XCTAssertEqual(audit.first?.readBack, c.readBack, line: c.line)
            XCTAssertEqual(audit.first?.after, c.after, line: c.line)
        }
        // Dry run: after is the "before" value, no read-back.
        let dry = ReplayLedger(events: [intent()]).auditRegisters(dryRun: true, decode: decode)
        XCTAssertEqual(dry.first?.after, .unsigned(1))
        XCTAssertNil(dry.first?.readBack)
    }

    /// Registering the same registers again (the snapshot, the intent) gives exactly the fates a fresh
    /// ledger would: new values in, every earlier answer and check gone.
    func testRegisteringTheSameRegistersAgainStartsThemOver() {
        var ledger = ReplayLedger(events: [
            intent(), ReplayEvent(.write, request: request()), answer(.noAnswer, frames: 2), check("00000007"),
            check("00000008", final: true),
            ReplayEvent(.restore, request: request(), answer: .rejected, frames: 1, message: "no"),
            ReplayEvent(.restoreCheck, checks: [JournalCheck(registerId: "r", data: nil, message: "gone")]),
        ])
        var again = r
        again.expected = .unsigned(9)
        again.expectedData = "00000009"
        again.before = nil
        again.beforeData = nil
        again.address = 12
        ledger.register([again])
        var fresh = ReplayLedger()
        fresh.register([again])
        XCTAssertEqual(ledger.fates, fresh.fates)
        XCTAssertEqual(ledger.index(of: "r"), 0)
        XCTAssertEqual(ledger.acknowledgedRegisters, 0)
    }

    /// A re-plan supersedes the refusal it re-plans (FC06 fallback after exception 01, shorter writes
    /// after exception 03): a register the replay then stops before writing again was never written —
    /// `notAttempted`, no `written` in the audit, not touched, so never in the rollback. Table: the
    /// registers a, b, c (u16 at 20, 21, 22), the events after the intent, each one's status, whether it
    /// is touched, and its audit `written`.
    func testARePlanClearsTheRefusalItSupersedes() {
        func reg(_ id: String, _ address: Int) -> IntentRegister {
            IntentRegister(
                registerId: id, address: address, length: 1, expected: .unsigned(5), expectedData: "0005", before: .unsigned(1),
                beforeData: "0001")
        }
        let abc = PlannedRequest(function: .fc16, address: 20, count: 3, registerIds: ["a", "b", "c"])
        let bc = PlannedRequest(function: .fc16, address: 21, count: 2, registerIds: ["b", "c"])
        func one(_ id: String, _ address: Int, _ f: WriteRequest.Function = .fc06) -> PlannedRequest {
            PlannedRequest(function: f, address: address, count: 1, registerIds: [id])
        }
        func ans(_ r: PlannedRequest, _ a: WriteAnswer, code: Int? = nil) -> ReplayEvent {
            ReplayEvent(.answer, request: r, answer: a, frames: 1, exceptionCode: code, message: code.map { "exception \($0)" })
        }
        func replan(_ superseded: PlannedRequest, _ rest: [PlannedRequest]) -> ReplayEvent {
            ReplayEvent(.replan, request: superseded, requests: rest, message: "re-planned")
        }
        func check(_ pairs: [(String, String)]) -> ReplayEvent {
            ReplayEvent(.check, checks: pairs.map { JournalCheck(registerId: $0.0, data: $0.1) })
        }
        let w = { (r: PlannedRequest) in ReplayEvent(.write, request: r) }
        let table:
            [(name: String, events: [ReplayEvent], statuses: [RegisterStatus], touched: [Int], written: [Bool], line: UInt)] = [
                (
                    "FC16 refused (01), FC06 fallback writes a, a clamped: stop",
                    [
                        w(abc), ans(abc, .rejected, code: 1), replan(abc, [one("a", 20), one("b", 21), one("c", 22)]),
                        w(one("a", 20)),
                        ans(one("a", 20), .acknowledged), check([("a", "0004")]),
                    ], [.mismatch, .notAttempted, .notAttempted], [0], [true, false, false], #line
                ),
                (
                    "the same refusal without its re-plan journaled (killed before it): still refused, never touched",
                    [w(abc), ans(abc, .rejected, code: 1)], [.rejected, .rejected, .rejected], [], [true, true, true], #line
                ),
                (
                    "FC16 refused (03), shorter writes: a, then b+c refused again, re-planned, b alone rejected (03)",
                    [
                        w(abc), ans(abc, .rejected, code: 3), replan(abc, [one("a", 20, .fc16), bc]), w(one("a", 20, .fc16)),
                        ans(one("a", 20, .fc16), .acknowledged), w(bc), ans(bc, .rejected, code: 3),
                        replan(bc, [one("b", 21, .fc16), one("c", 22, .fc16)]), w(one("b", 21, .fc16)),
                        ans(one("b", 21, .fc16), .rejected, code: 3), check([("a", "0005")]),
                    ], [.verified, .rejected, .notAttempted], [0], [true, true, false], #line
                ),
                (
                    "a frame in doubt, then a refusal of the same register: the doubt stays",
                    [
                        w(one("a", 20)), ans(one("a", 20), .noAnswer), w(one("a", 20)), ans(one("a", 20), .rejected, code: 4),
                    ], [.inDoubt, .notAttempted, .notAttempted], [0], [true, false, false], #line
                ),
            ]
        for c in table {
            var ledger = ReplayLedger()
            ledger.record(
                ReplayEvent(
                    .intent,
                    intent: ReplayIntent(
                        job: "j", time: Date(timeIntervalSince1970: 0), who: "uid:0", pageId: "p", deviceId: "d", device: "d",
                        endpoint: "tcp://h:1", unit: 1, templateVersion: 1, pageHash: "h", identity: [], onError: .rollback,
                        registers: [reg("a", 20), reg("b", 21), reg("c", 22)])))
            for e in c.events { ledger.record(e) }
            XCTAssertEqual(ledger.statuses(), c.statuses, c.name, line: c.line)
            XCTAssertEqual(ledger.touchedIndices, c.touched, c.name, line: c.line)
            let audit = ledger.auditRegisters { _, words in .unsigned(UInt64(words.first ?? 0)) }
            XCTAssertEqual(audit.map { $0.written != nil }, c.written, c.name, line: c.line)
            XCTAssertEqual(
                audit.map(\.status), c.statuses.map(AuditRegisterStatus.init), c.name, line: c.line)
            // The rejected line carries its code; a superseded refusal leaves none.
            let lines = ledger.results(decodeWords: { _, w in .unsigned(UInt64(w.first ?? 0)) })
            for (line, status) in zip(lines, c.statuses) where status != .rejected {
                XCTAssertNil(line.exceptionCode, "\(c.name): \(line.registerId)", line: c.line)
            }
            // The rollback restores only what was touched.
            ledger.record(
                ReplayEvent(.restore, request: one("a", 20), answer: .acknowledged, frames: 1))
            XCTAssertEqual(
                ledger.rollbackResults { _, w in .unsigned(UInt64(w.first ?? 0)) }?.registers.map(\.registerId),
                c.touched.map { ["a", "b", "c"][$0] }, c.name, line: c.line)
        }
    }

    /// The rollback's lines say which values are the "not set" default (restored, read back, before).
    func testRollbackLinesSayWhichValuesAreNotSet() {
        let events: [ReplayEvent] = [
            intent(), ReplayEvent(.write, request: request()), answer(.acknowledged), check("00000005"),
            ReplayEvent(.restore, request: request(), answer: .acknowledged, frames: 1),
            ReplayEvent(.restoreCheck, checks: [JournalCheck(registerId: "r", data: "00000001")]),
        ]
        let ledger = ReplayLedger(events: events)
        let decode: (String, [UInt16]) -> RegisterValue = { _, w in .unsigned(UInt64(w.last ?? 0)) }
        let plain = ledger.rollbackResults(decode: decode)?.registers.first
        XCTAssertNil(plain?.expectedUnset)
        XCTAssertNil(plain?.actualUnset)
        let marked = ledger.rollbackResults(decode: decode, unset: { _, w in w == [0, 1] })?.registers.first
        XCTAssertEqual(marked?.expectedUnset, true)
        XCTAssertEqual(marked?.actualUnset, true)
        XCTAssertEqual(marked?.beforeUnset, true)
        let other = ledger.rollbackResults(decode: decode, unset: { _, w in w == [0xFFFF, 0xFFFF] })?.registers.first
        XCTAssertEqual(other?.expectedUnset, false)
        XCTAssertEqual(other?.actualUnset, false)
    }
}
