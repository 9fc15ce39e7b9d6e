import XCTest

@testable import LastsetCore

/// What a replay does after a verification window (`AfterWindow.decide`, issue 21): on, re-plan, pass over a
/// failed write, or stop — and why — for every kind of finding under each `onError`.
final class AfterWindowTests: XCTestCase {
    private typealias F = WindowFindings
    private func failed(_ write: Int, _ refusal: WriteRefusal?) -> F.FailedWrite { F.FailedWrite(write: write, refusal: refusal) }

    func testDecisionTable() {
        let shorten = WriteRefusal.shorten(maxWriteRegisters: 30)
        // findings, decision under stop, under rollback, under continue
        let table: [(F, AfterWindow, AfterWindow, UInt)] = [
            (F(), .nextWindow, .nextWindow, #line),
            // A register read back different, or not read back: stop before anything beyond the window.
            (F(mismatch: 3), .stop(.mismatch(entry: 3)), .nextWindow, #line),
            (F(unreadable: 4), .stop(.unreadable(entry: 4)), .nextWindow, #line),
            (F(mismatch: 5, unreadable: 4), .stop(.mismatch(entry: 5)), .nextWindow, #line),
            // The journal refused a write's intent: no frame without its record, whatever the policy.
            (F(journalFailed: true), .stop(.journalBroken), .stop(.journalBroken), #line),
            (F(mismatch: 1, journalFailed: true), .stop(.mismatch(entry: 1)), .stop(.journalBroken), #line),
            // Shutdown between two writes: a clean stop, whatever the policy.
            (F(cancelled: true), .stop(.shutdown), .stop(.shutdown), #line),
            (F(unreadable: 2, cancelled: true), .stop(.unreadable(entry: 2)), .stop(.shutdown), #line),
            // A write refused with an exception a re-plan answers: re-plan from it, whatever the policy.
            (F(failedWrite: failed(7, .fallBackToFC06)), .replan(write: 7, .fallBackToFC06), .replan(write: 7, .fallBackToFC06), #line),
            (F(failedWrite: failed(7, shorten)), .replan(write: 7, shorten), .replan(write: 7, shorten), #line),
            // A value rejected, or a write unanswered or not sent (no exception): stop, or pass over it.
            (F(failedWrite: failed(7, .rejected)), .stop(.failedWrite(write: 7)), .skipFailedWrite(write: 7), #line),
            (F(failedWrite: failed(7, nil)), .stop(.failedWrite(write: 7)), .skipFailedWrite(write: 7), #line),
            // A read-back finding goes first (the failed write is after the checked registers).
            (F(mismatch: 0, failedWrite: failed(2, shorten)), .stop(.mismatch(entry: 0)), .replan(write: 2, shorten), #line),
            (F(unreadable: 0, failedWrite: failed(2, nil)), .stop(.unreadable(entry: 0)), .skipFailedWrite(write: 2), #line),
        ]
        for (findings, stopping, continuing, line) in table {
            XCTAssertEqual(AfterWindow.decide(findings, policy: RecoveryPolicy(.stop)), stopping, "stop", line: line)
            XCTAssertEqual(AfterWindow.decide(findings, policy: RecoveryPolicy(.rollback)), stopping, "rollback", line: line)
            XCTAssertEqual(AfterWindow.decide(findings, policy: RecoveryPolicy(.continue)), continuing, "continue", line: line)
        }
    }

    /// A rejection is never re-planned (a split write of a refused value would leave it torn): composed with
    /// `WriteRefusal.decide`, exception 03 on one register stops (or is passed over), never a `replan`.
    func testARejectedValueIsNeverReplanned() {
        for onError in OnError.allCases {
            for (code, lengths) in [(UInt8(0x03), [2]), (0x03, [4]), (0x02, [1, 1]), (0x04, [2, 2]), (0x01, [1])] {
                let refusal = WriteRefusal.decide(
                    function: .fc16, exceptionCode: code, wordCount: lengths.reduce(0, +), registerLengths: lengths,
                    writeFunction: .fc16, fellBackToFC06: false)
                let decision = AfterWindow.decide(F(failedWrite: failed(1, refusal)), policy: RecoveryPolicy(onError))
                if case .replan = decision { XCTFail("\(onError) \(code) \(lengths): re-planned a rejection") }
            }
        }
    }
}
