import Foundation
import LastsetCore
import LastsetStore
import TestSupport
import XCTest

@testable import LastsetEngine

/// A running replay's journal in the database: a transition that announces a frame is committed before the call
/// returns, with the transitions kept back before it, in order; a prompt one is queued at once; the others wait.
final class ReplayJournalTests: XCTestCase {
    private let request = PlannedRequest(function: .fc16, address: 10, count: 2, registerIds: ["a"])

    private func intent() -> ReplayIntent {
        ReplayIntent(
            job: "J1", time: Date(timeIntervalSince1970: 1_800_000_000), who: "u", pageId: "p", deviceId: nil, device: "d",
            endpoint: "tcp://127.0.0.1:1", unit: 1, templateVersion: 1, pageHash: "h", identity: [], onError: .stop,
            registers: [
                IntentRegister(registerId: "a", address: 10, length: 2, expected: .unsigned(1), expectedData: "00000001")
            ])
    }

    /// The kinds of the rows of `replay_event`, in `seq` order, and their seqs.
    private func rows(_ database: Database) async throws -> [(Int, String)] {
        try await database.read { c in
            var out: [(Int, String)] = []
            try c.rows("SELECT seq, event FROM replay_event WHERE job = 'J1' ORDER BY seq") { row in
                let event = try? APICoding.decoder().decode(ReplayEvent.self, from: Data((row.text(1) ?? "").utf8))
                out.append((Int(row.int64(0)), event?.kind.rawValue ?? "?"))
                return true
            }
            return out
        }
    }

    func testTransitionsThatMayWaitGoWithTheNextWriteIntentInOrder() async throws {
        let dir = try TestPaths.temporaryDirectory(prefix: "journal")
        defer { try? FileManager.default.removeItem(at: dir) }
        let database = try RecordStore.open(dataDirectory: dir)
        defer { database.close() }
        let journal = ReplayJournal(database: database)
        let row = ReplayJournal.IntentRow(intent())
        try await database.write { c in try ReplayJournal.insert(row, on: c) }
        let entry = journal.entry(job: "J1")

        XCTAssertTrue(entry.append(ReplayEvent(.write, request: request), beforeFrame: true))
        var kinds = try await rows(database).map(\.1)
        XCTAssertEqual(kinds, ["write"], "committed before the call returned")
        XCTAssertTrue(entry.append(ReplayEvent(.answer, request: request, answer: .acknowledged, frames: 1), beforeFrame: false))
        XCTAssertTrue(
            entry.append(ReplayEvent(.check, checks: [JournalCheck(registerId: "a", data: "00000001")]), beforeFrame: false))
        XCTAssertEqual(entry.kept, 2)
        let committed = database.statistics.commits
        kinds = try await rows(database).map(\.1)
        XCTAssertEqual(kinds, ["write"], "kept back")
        XCTAssertTrue(entry.append(ReplayEvent(.write, request: request), beforeFrame: true))
        XCTAssertEqual(entry.kept, 0)
        XCTAssertEqual(database.statistics.commits, committed + 1, "one commit for the three")
        let after = try await rows(database)
        XCTAssertEqual(after.map(\.1), ["write", "answer", "check", "write"])
        XCTAssertEqual(after.map(\.0), [1, 2, 3, 4])

        // A prompt transition (the final pass) is queued at once, with what was kept before it.
        XCTAssertTrue(entry.append(ReplayEvent(.answer, request: request, answer: .acknowledged, frames: 1), beforeFrame: false))
        XCTAssertTrue(entry.append(ReplayEvent(.finalCheck, checks: []), beforeFrame: false))
        XCTAssertEqual(entry.kept, 0)
        try await database.write { _ in }  // committed after everything queued before it
        kinds = try await rows(database).map(\.1)
        XCTAssertEqual(kinds, ["write", "answer", "check", "write", "answer", "finalCheck"])

        // Folded back, the journal gives what the replay knew.
        let left = try await journal.leftovers()
        XCTAssertEqual(left.map(\.job), ["J1"])
        XCTAssertEqual(left.first?.ledger.statuses(), [.verified])
        XCTAssertEqual(left.first?.unreadable, 0)
    }
}
