import XCTest

@testable import LastsetCore

/// What a job's report tells of its device's health, table-driven: from the causes, never from a message's wording.
final class DeviceContactTests: XCTestCase {
    private func replay(_ statuses: [(String, RegisterStatus, String?)], requests: Int) -> ReplayReport {
        ReplayReport(
            pageId: "heating", templateVersion: 1, pageHash: "sha256:0", target: "press-b", endpoint: "tcp://127.0.0.1:1",
            unit: 1, options: ReplayOptions(), status: .failed, warnings: [], identity: [], beforeWrite: [], afterWrite: [],
            registers: statuses.map { id, status, message in
                RegisterResult(
                    registerId: id, address: 1, length: 1, status: status, expected: .unsigned(1), expectedData: "0001",
                    message: message)
            }, plan: [], fellBackToFC06: false, requests: requests, writeFrames: 0)
    }

    func testReplay() {
        let cases: [(String, ReplayReport, DeviceContact)] = [
            ("verified", replay([("a", .verified, nil)], requests: 3), .answered),
            ("no request sent", replay([("a", .notAttempted, nil)], requests: 0), .none),
            ("refused before any request", replay([], requests: 0), .none),
            ("a register failed", replay([("a", .verified, nil), ("b", .failed, "timeout")], requests: 4), .lost("b: timeout")),
            ("failed without a message", replay([("c", .failed, nil)], requests: 1), .lost("c: failed")),
            ("the first failure is named", replay([("d", .failed, "x"), ("e", .failed, "y")], requests: 2), .lost("d: x")),
            // An exception is an answer: the device is reachable.
            ("rejected", replay([("a", .rejected, "illegal data value")], requests: 1), .answered),
            ("mismatch", replay([("a", .mismatch, nil)], requests: 2), .answered),
        ]
        for (name, report, expected) in cases {
            XCTAssertEqual(DeviceContact(replay: report), expected, name)
        }
    }

    func testCapture() {
        func problem(_ id: String, _ cause: CaptureProblem.Cause) -> CaptureProblem {
            CaptureProblem(registerId: id, address: 7, valueData: nil, value: nil, rule: "read failed: timeout", cause: cause)
        }
        let cases: [(String, [CaptureProblem], DeviceContact)] = [
            ("clean", [], .answered),
            ("an invalid value is still an answer", [problem("a", .invalidValue)], .answered),
            ("a read failed", [problem("a", .invalidValue), problem("b", .readFailed)], .lost("b @7: read failed: timeout")),
            ("the identity could not be read", [problem("m", .identityReadFailed)], .lost("m @7: read failed: timeout")),
        ]
        for (name, problems, expected) in cases {
            let report = CaptureReport(pageId: "heating", device: "press-a", pageHash: "sha256:0", problems: problems)
            XCTAssertEqual(DeviceContact(capture: report), expected, name)
        }
    }
}
