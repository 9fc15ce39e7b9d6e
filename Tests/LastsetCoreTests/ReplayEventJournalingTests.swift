import XCTest

@testable import LastsetCore

/// How soon each transition must reach the journal: the one table the journal follows.
final class ReplayEventJournalingTests: XCTestCase {
    func testEveryKindHasItsUrgency() {
        let table: [(ReplayEvent.Kind, ReplayEvent.Journaling)] = [
            // Announces a frame: committed before it goes out.
            (.intent, .beforeFrame), (.write, .beforeFrame),
            // Facts the interrupted record must keep (an unlock answered), and the last read-back of a phase.
            (.step, .prompt), (.finalCheck, .prompt), (.restoreCheck, .prompt),
            // Lost with the daemon, these leave the record more cautious only: they go with the next write's intent.
            (.answer, .mayWait), (.check, .mayWait), (.replan, .mayWait), (.restore, .mayWait), (.end, .mayWait),
        ]
        XCTAssertEqual(Set(table.map(\.0.rawValue)).count, table.count, "each kind once")
        for (kind, journaling) in table {
            XCTAssertEqual(ReplayEvent(kind).journaling, journaling, kind.rawValue)
        }
    }

    /// A kept-back transition lost with the daemon never makes the ledger claim more: an answer missing leaves the
    /// register sent without an answer (in doubt), a read-back missing leaves it not read back.
    func testALostTransitionThatMayWaitOnlyMakesTheLedgerMoreCautious() {
        let request = PlannedRequest(function: .fc16, address: 10, count: 2, registerIds: ["a"])
        let intent = ReplayIntent(
            job: "J", time: Date(timeIntervalSince1970: 0), who: "u", pageId: "p", deviceId: nil, device: "d",
            endpoint: "e", unit: 1, templateVersion: 1, pageHash: "h", identity: [], onError: .stop,
            registers: [
                IntentRegister(registerId: "a", address: 10, length: 2, expected: .unsigned(1), expectedData: "00000001")
            ])
        let all: [ReplayEvent] = [
            ReplayEvent(.intent, intent: intent), ReplayEvent(.write, request: request),
            ReplayEvent(.answer, request: request, answer: .acknowledged, frames: 1),
            ReplayEvent(.check, checks: [JournalCheck(registerId: "a", data: "00000001")]),
        ]
        XCTAssertEqual(ReplayLedger(events: all).statuses(), [.verified])
        XCTAssertEqual(ReplayLedger(events: Array(all.prefix(3))).statuses(), [.unverified], "not read back")
        XCTAssertEqual(ReplayLedger(events: Array(all.prefix(2))).statuses(), [.inDoubt], "sent, no answer")
        XCTAssertTrue(all.dropFirst(2).allSatisfy { $0.journaling == .mayWait })
    }
}
