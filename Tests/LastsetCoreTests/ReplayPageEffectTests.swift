import Foundation
import LastsetCore
import XCTest

/// `ReplayPageEffect.of`: what a replay's or dry run's outcome does to its device page's recorded state
/// (issue 19, defect 9), and the outcome an audit record gives (the rebuild from the log decides from it).
final class ReplayPageEffectTests: XCTestCase {
    func testEveryOutcomeHasItsEffect() {
        typealias O = ReplayOutcome
        let cases: [(String, ReplayOutcome, ReplayPageEffect)] = [
            ("success", O(dryRun: false, result: .succeeded, registersChanged: 4), .applied),
            ("success writing nothing new", O(dryRun: false, result: .succeeded, registersChanged: 0), .applied),
            ("refused before the first frame", O(dryRun: false, result: .refused), .keep),
            ("failed, every write rejected", O(dryRun: false, result: .failed, registersChanged: 0), .keep),
            ("failed half-way, no rollback", O(dryRun: false, result: .failed, registersChanged: 2), .partiallyWritten),
            ("failed, one write in doubt", O(dryRun: false, result: .failed, registersChanged: 1), .partiallyWritten),
            (
                "failed, rollback restored everything",
                O(dryRun: false, result: .failed, registersChanged: 2, rollback: .restored), .keep
            ),
            (
                "failed, rollback incomplete",
                O(dryRun: false, result: .failed, registersChanged: 2, rollback: .incomplete), .partiallyWritten
            ),
            (
                "failed, rollback of nothing changed",
                O(dryRun: false, result: .failed, registersChanged: 0, rollback: .incomplete), .keep
            ),
            ("interrupted", O(dryRun: false, result: .interrupted, registersChanged: 3), .interrupted),
            ("interrupted before any frame", O(dryRun: false, result: .interrupted), .interrupted),
            ("dry run that read every entry", O(dryRun: true, result: .planned, readEveryEntry: true), .clearsMark),
            ("dry run missing some reads", O(dryRun: true, result: .planned, readEveryEntry: false), .keep),
            ("refused dry run (unreachable)", O(dryRun: true, result: .refused), .keep),
        ]
        for (name, outcome, want) in cases {
            XCTAssertEqual(ReplayPageEffect.of(outcome), want, name)
        }
        XCTAssertEqual(ReplayPageEffect.partiallyWritten.mark, .failed)
        XCTAssertEqual(ReplayPageEffect.interrupted.mark, .interrupted)
        for effect in [ReplayPageEffect.keep, .applied, .clearsMark] { XCTAssertNil(effect.mark, "\(effect)") }
    }

    private func record(
        _ kind: AuditKind, _ result: AuditResult, _ statuses: [RegisterStatus], changed: Int? = nil,
        rollback: AuditRollbackResult? = nil
    ) -> AuditRecord {
        record(kind, result, audit: statuses.map(AuditRegisterStatus.replay), changed: changed, rollback: rollback)
    }

    private func record(
        _ kind: AuditKind, _ result: AuditResult, audit statuses: [AuditRegisterStatus], changed: Int? = nil,
        rollback: AuditRollbackResult? = nil
    ) -> AuditRecord {
        AuditRecord(
            time: Date(timeIntervalSince1970: 1000), kind: kind, who: "uid:0", pageId: "heating", device: "press-b",
            endpoint: "tcp://127.0.0.1:1", unit: 1, identity: [], templateVersion: 1, pageHash: "h", result: result,
            message: "read-back differs from the template; stopped after a mismatch at heating.limit",
            registers: statuses.enumerated().map {
                AuditRegister(registerId: "r\($0.offset)", before: nil, after: nil, status: $0.element)
            }, job: "J", rollback: rollback, writeFrames: 2, templateVersionId: "1", registersChanged: changed)
    }

    func testTheOutcomeAnAuditRecordGives() {
        let cases: [(String, AuditRecord, ReplayPageEffect?)] = [
            ("success", record(.replay, .succeeded, [.verified, .verified], changed: 2), .applied),
            ("partial", record(.replay, .failed, [.verified, .mismatch, .notAttempted], changed: 2), .partiallyWritten),
            // The count wins over the statuses: a register rejected after some of its words were acknowledged.
            ("rejected after a word acknowledged", record(.replay, .failed, [.rejected], changed: 1), .partiallyWritten),
            ("every write rejected", record(.replay, .failed, [.rejected, .rejected], changed: 0), .keep),
            // Records written before the count: the statuses of registers a frame may have changed.
            ("older partial record", record(.replay, .failed, [.verified, .inDoubt]), .partiallyWritten),
            ("older record, nothing changed", record(.replay, .failed, [.rejected, .failed, .notAttempted]), .keep),
            ("restored", record(.replay, .failed, [.verified, .mismatch], changed: 2, rollback: .restored), .keep),
            ("refused", record(.replay, .refused, [.notAttempted], changed: 0), .keep),
            ("interrupted", record(.replay, .interrupted, [.unverified]), .interrupted),
            ("dry run read all", record(.dryRun, .planned, [.unchanged, .differs]), .clearsMark),
            ("dry run missing a read", record(.dryRun, .planned, [.unchanged, .notAttempted]), .keep),
            ("dry run refused", record(.dryRun, .refused, [.notAttempted]), .keep),
            ("an intent", record(.replay, .started, [.notAttempted]), nil),
            ("a capture", record(.capture, .archived, audit: [.captured]), nil),
        ]
        for (name, r, want) in cases {
            XCTAssertEqual(ReplayOutcome(record: r).map(ReplayPageEffect.of), want, name)
        }
    }

    func testAFailedReplaysMarkDropsTheVersionAndSaysWhy() {
        let r = record(.replay, .failed, [.verified, .verified, .mismatch, .verified], changed: 4)
        let m = UnverifiedMark.failedReplay(r)
        XCTAssertEqual(m.reason, .failed)
        XCTAssertEqual(m.job, "J")
        XCTAssertEqual(m.since, r.time)
        XCTAssertEqual(
            m.message,
            "failed: partially written by version 1, holds no version (2 write frames; 4 of 4 registers changed; read-back differs from the template; stopped after a mismatch at heating.limit); replay or diff the device to clear"
        )
        let applied = AppliedTemplate(version: 2, pageHash: "h", appliedAt: .distantPast, appliedBy: "x", job: "j", entries: [])
        var s = DevicePageState(device: "press-b", pageId: "heating", applied: applied)
        s.setMark(UnverifiedMark(device: "press-b", pageId: "heating", since: r.time, job: "K", message: "interrupted"))
        XCTAssertEqual(s.applied, applied, "an interrupted replay leaves the version beside the mark")
        s.setMark(m)
        XCTAssertNil(s.applied, "a partially written page holds no version")
        XCTAssertEqual(s.unverified, m)
    }

    func testAMarkWithoutAReasonWasInterrupted() throws {
        let old = #"{"device":"d","pageId":"p","since":"2026-01-02T03:04:05.000Z","job":"j","message":"interrupted: …"}"#
        let m = try APICoding.decoder().decode(UnverifiedMark.self, from: Data(old.utf8))
        XCTAssertEqual(m.reason, .interrupted)
        let failed = UnverifiedMark(device: "d", pageId: "p", since: m.since, job: "j", reason: .failed, message: "x")
        let back = try APICoding.decoder().decode(UnverifiedMark.self, from: try APICoding.encoder().encode(failed))
        XCTAssertEqual(back, failed)
    }
}
