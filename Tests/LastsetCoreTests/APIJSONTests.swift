import Foundation
import LastsetCore
import XCTest

/// The fast job JSON decodes, with the API's decoder, into exactly the values written.
final class APIJSONTests: XCTestCase {
    private func result(_ id: String, _ status: RegisterStatus, full: Bool) -> RegisterResult {
        RegisterResult(
            registerId: id, address: 7, length: 2, status: status, expected: .signed(-5), expectedData: "FFFFFFFB",
            actual: full ? .float(2.5) : nil, actualData: full ? "40200000" : nil, before: full ? .text("a\"b") : nil,
            beforeUnset: full ? true : nil, exceptionCode: full ? 2 : nil, message: full ? "line\nbreak" : nil)
    }

    func testJobsRoundTrip() throws {
        let replay = ReplayReport(
            pageId: "heating", templateVersion: 3, pageHash: "sha256:ab", target: "press-b", endpoint: "tcp://127.0.0.1:1",
            unit: 1,
            options: ReplayOptions(dryRun: false, onError: .rollback), status: .failed, reason: "x", stoppedAt: "at y",
            warnings: ["w1"],
            identity: [IdentityCheck(registerId: "model", expected: .text("A"), actual: .text("A"), matches: true)],
            beforeWrite: [StepResult(address: 1, value: 2, status: .ok)],
            afterWrite: [StepResult(address: 3, value: 4, status: .notAttempted, message: "m")],
            registers: [result("a", .verified, full: true), result("b", .notAttempted, full: false)],
            plan: [
                PlannedRequest(function: .fc16, address: 7, count: 2, registerIds: ["a"]),
                PlannedRequest(function: .fc06, address: 9, count: 1, registerIds: ["b", "c\"d"]),
                PlannedRequest(function: .fc16, address: 10, count: 1, registerIds: []),
            ], fellBackToFC06: true,
            rollback: RollbackResult(restored: false, registers: [result("a", .mismatch, full: true)]), requests: 9,
            writeFrames: 4)
        var minimal = replay
        minimal.reason = nil
        minimal.stoppedAt = nil
        minimal.rollback = nil
        let capture = CaptureReport(
            pageId: "heating", device: "press-a", archived: false, version: nil, pageHash: "sha256:cd", entryCount: 0,
            skipped: [SkippedRegister(registerId: "s", address: 9, reason: .unset)],
            problems: [
                CaptureProblem(registerId: "p", address: 1, valueData: "03E8", value: .unsigned(1000), rule: "above max 900"),
                CaptureProblem(registerId: "q", address: 2, valueData: nil, value: nil, rule: "read failed"),
            ],
            requests: 3, error: "boom")
        let t = Date(timeIntervalSince1970: 1_800_000_000.25)
        let jobs = [
            JobInfo(
                id: "1", kind: .apply, pageId: "heating", device: "press-b", who: "uid:0", state: .finished,
                progress: JobProgress(phase: .writing, done: 1, total: 2), startedAt: t, finishedAt: t, replay: replay),
            JobInfo(id: "2", kind: .apply, pageId: "heating", device: "press-b", who: "uid:0", startedAt: t, replay: minimal),
            JobInfo(
                id: "3", kind: .capture, pageId: "heating", device: "press-a", who: "uid:0", startedAt: t, capture: capture,
                error: "e"),
        ]
        let decoder = APICoding.decoder()
        for job in jobs {
            XCTAssertEqual(try decoder.decode(JobInfo.self, from: Data(APICoding.json(job))), job)
        }
        XCTAssertEqual(try decoder.decode([JobInfo].self, from: Data(APICoding.json(jobs))), jobs)
        XCTAssertEqual(try decoder.decode(ReplayReport.self, from: Data(APICoding.json(replay))), replay)
        // Same keys as JSONEncoder writes.
        let fast = try JSONSerialization.jsonObject(with: Data(APICoding.json(jobs[0]))) as! NSDictionary
        let slow = try JSONSerialization.jsonObject(with: APICoding.encoder().encode(jobs[0])) as! NSDictionary
        XCTAssertEqual(fast, slow)
    }
}
