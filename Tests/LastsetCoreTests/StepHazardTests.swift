import XCTest

@testable import LastsetCore

/// Issue 19, defect 13: the steps of an interrupted replay as its journal tells them — each listed by the
/// intent, journaled before its frame, answered — and what they mean for the machine (`StepHazard`).
final class StepHazardTests: XCTestCase {
    private let unlock = WriteStep(address: 1536, value: 6868)
    private let commit = WriteStep(address: 2304, value: 0)

    private func intent(before: [WriteStep]?, after: [WriteStep]?) -> ReplayEvent {
        ReplayEvent(
            .intent,
            intent: ReplayIntent(
                job: "j", time: Date(timeIntervalSince1970: 0), who: "uid:0", pageId: "p", deviceId: "d", device: "d",
                endpoint: "tcp://h:1", unit: 1, templateVersion: 1, pageHash: "h", identity: [], onError: .stop,
                registers: [], beforeWrite: before, afterWrite: after))
    }
    private func request(_ step: WriteStep) -> PlannedRequest {
        PlannedRequest(function: .fc06, address: step.address, count: 1, registerIds: [])
    }
    private func sent(_ step: WriteStep, _ phase: StepPhase) -> ReplayEvent {
        ReplayEvent(.write, request: request(step), phase: phase)
    }
    private func answered(_ step: WriteStep, _ phase: StepPhase, _ answer: WriteAnswer, exception: Int? = nil) -> ReplayEvent {
        ReplayEvent(.step, request: request(step), answer: answer, frames: 1, exceptionCode: exception, phase: phase)
    }

    func testTheStepsOfAJournalAndTheirHazard() {
        let table: [(events: [ReplayEvent], before: [StepStatus]?, after: [StepStatus]?, hazard: StepHazard, text: String?, line: UInt)] = [
            ([], nil, nil, .none, nil, #line),
            ([], [.notAttempted], [.notAttempted], .none, "beforeWrite[0] 1536 := 6868 not sent, afterWrite[0] 2304 := 0 not sent; steps: 0 sent, 0 answered", #line),
            (
                [sent(unlock, .beforeWrite)], [.inDoubt], [.notAttempted], .mayBeUnlocked,
                "beforeWrite[0] 1536 := 6868 sent, no answer, afterWrite[0] 2304 := 0 not sent: the machine may be left unlocked (beforeWrite sent, afterWrite not); steps: 1 sent, 0 answered",
                #line
            ),
            (
                [sent(unlock, .beforeWrite), answered(unlock, .beforeWrite, .acknowledged)], [.ok], [.notAttempted],
                .mayBeUnlocked,
                "beforeWrite[0] 1536 := 6868 acknowledged, afterWrite[0] 2304 := 0 not sent: the machine may be left unlocked (beforeWrite sent, afterWrite not); steps: 1 sent, 1 answered",
                #line
            ),
            (
                [sent(unlock, .beforeWrite), answered(unlock, .beforeWrite, .rejected, exception: 4)], [.failed],
                [.notAttempted], .none,
                "beforeWrite[0] 1536 := 6868 refused (exception 04), afterWrite[0] 2304 := 0 not sent; steps: 1 sent, 1 answered",
                #line
            ),
            (
                [
                    sent(unlock, .beforeWrite), answered(unlock, .beforeWrite, .acknowledged), sent(commit, .afterWrite),
                ], [.ok], [.inDoubt], .commitInDoubt,
                "beforeWrite[0] 1536 := 6868 acknowledged, afterWrite[0] 2304 := 0 sent, no answer: afterWrite sent without a confirmed answer: the new values may be committed; steps: 2 sent, 1 answered",
                #line
            ),
            (
                [
                    sent(unlock, .beforeWrite), answered(unlock, .beforeWrite, .acknowledged), sent(commit, .afterWrite),
                    answered(commit, .afterWrite, .acknowledged),
                ], [.ok], [.ok], .committed,
                "beforeWrite[0] 1536 := 6868 acknowledged, afterWrite[0] 2304 := 0 acknowledged: afterWrite acknowledged: the new values were committed; steps: 2 sent, 2 answered",
                #line
            ),
        ]
        for (k, c) in table.enumerated() {
            let listed = k == 0 ? intent(before: nil, after: nil) : intent(before: [unlock], after: [commit])
            let ledger = ReplayLedger(events: [listed] + c.events)
            XCTAssertEqual(ledger.stepResults(.beforeWrite)?.map(\.status), c.before, line: c.line)
            XCTAssertEqual(ledger.stepResults(.afterWrite)?.map(\.status), c.after, line: c.line)
            XCTAssertEqual(ledger.stepHazard, c.hazard, line: c.line)
            XCTAssertEqual(ledger.stepsText, c.text, line: c.line)
        }
    }

    /// A journal written before intents listed their steps: a step is known from its events alone, its value
    /// is not, so the record carries no step list but the message still names the address.
    func testAStepTheIntentDidNotListIsNamedByItsAddress() {
        let ledger = ReplayLedger(events: [
            intent(before: nil, after: nil), sent(unlock, .beforeWrite), answered(unlock, .beforeWrite, .acknowledged),
        ])
        XCTAssertNil(ledger.stepResults(.beforeWrite))
        XCTAssertEqual(ledger.stepHazard, .mayBeUnlocked)
        XCTAssertEqual(
            ledger.stepsText,
            "beforeWrite[0] 1536 acknowledged: the machine may be left unlocked (beforeWrite sent, afterWrite not); steps: 1 sent, 1 answered")
    }

    /// Two steps at one address: each `.write` takes the first not yet sent, each answer the first sent and
    /// unanswered.
    func testTwoStepsAtOneAddressAreFoldedInOrder() {
        let first = WriteStep(address: 1536, value: 1)
        let second = WriteStep(address: 1536, value: 2)
        let ledger = ReplayLedger(events: [
            intent(before: [first, second], after: []), sent(first, .beforeWrite), answered(first, .beforeWrite, .acknowledged),
            sent(second, .beforeWrite),
        ])
        XCTAssertEqual(ledger.stepResults(.beforeWrite)?.map(\.status), [.ok, .inDoubt])
        XCTAssertEqual(ledger.stepResults(.beforeWrite)?.map(\.value), [1, 2])
    }
}
