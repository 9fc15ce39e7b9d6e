import LastsetCore
import XCTest

@testable import LastsetService

/// Finished jobs are kept within a count and a register-line budget, newest first.
final class JobTableTests: XCTestCase {
    private func replayJob(_ n: Int, lines: Int) -> JobOutcome {
        var report = ReplayReport(
            pageId: "p", templateVersion: 1, pageHash: "h", target: "d", endpoint: "tcp://127.0.0.1:1", unit: 1,
            options: ReplayOptions(), status: .succeeded, reason: nil, stoppedAt: nil, warnings: [], identity: [],
            beforeWrite: [], afterWrite: [], registers: [], plan: [], fellBackToFC06: false, rollback: nil, requests: 0,
            writeFrames: 0)
        report.registers = (0..<lines).map {
            RegisterResult(
                registerId: "p.r\($0)", address: $0, length: 1, status: .verified, expected: .unsigned(UInt64(n)),
                expectedData: "0001")
        }
        return JobOutcome(replay: report)
    }

    func testLargeReportsAreForgottenOldestFirstWithinTheBudget() async {
        let table = JobTable(keepRegisterLines: 20_000)
        var ids: [String] = []
        for n in 0..<5 {
            let outcome = replayJob(n, lines: 7_500)
            let job = await table.start(
                JobInfo(id: "", kind: .apply, pageId: "p", device: "d", who: "test"), work: { _ in outcome })
            ids.append(job.id)
            _ = await table.wait(job.id)
        }
        // 7,500 lines each: the two newest fit in 20,000, the three older ones are forgotten.
        let kept = await table.list().map(\.id)
        XCTAssertEqual(kept, [ids[4], ids[3]])
        let oldest = await table.get(ids[0])
        XCTAssertNil(oldest)
        // A single job over the budget is still kept (the newest always is).
        let big = replayJob(9, lines: 30_000)
        let job = await table.start(JobInfo(id: "", kind: .apply, pageId: "p", device: "d", who: "test"), work: { _ in big })
        _ = await table.wait(job.id)
        let afterBig = await table.list().map(\.id)
        XCTAssertEqual(afterBig, [job.id])
        // Small jobs: the count limit (200) still applies.
        for _ in 0..<205 {
            let small = await table.start(
                JobInfo(id: "", kind: .capture, pageId: "p", device: "d", who: "test"), work: { _ in JobOutcome() })
            _ = await table.wait(small.id)
        }
        let count = await table.list().count
        XCTAssertEqual(count, 200)
    }

    /// Shutdown's drain returns as soon as the last running job ends (woken by it, not by a polling loop), and at
    /// its deadline with the count of jobs still running when one does not end.
    func testDrainReturnsWhenTheLastJobEndsOrAtItsDeadline() async {
        let table = JobTable()
        let none = await table.drain(deadline: .seconds(5))
        XCTAssertEqual(none, 0)
        let gate = AsyncStream<Void>.makeStream()
        let info = JobInfo(id: "", kind: .apply, pageId: "p", device: "d", who: "test")
        _ = await table.start(info) { _ in
            for await _ in gate.stream { break }
            return JobOutcome()
        }
        let clock = ContinuousClock()
        let short = await clock.measure {
            let left = await table.drain(deadline: .milliseconds(200))
            XCTAssertEqual(left, 1, "a job still running at the deadline is counted")
        }
        XCTAssertGreaterThanOrEqual(short, .milliseconds(200))
        Task {
            try? await Task.sleep(for: .milliseconds(100))
            gate.continuation.yield()
        }
        let long = await clock.measure {
            let left = await table.drain(deadline: .seconds(30))
            XCTAssertEqual(left, 0)
        }
        XCTAssertLessThan(long, .seconds(5), "drain waited for its deadline although the job had ended")
    }

}
