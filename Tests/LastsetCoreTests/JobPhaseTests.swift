import Foundation
import XCTest

@testable import LastsetCore

/// `JobPhase`: typed in the code, the same text on the wire as before it was typed.
final class JobPhaseTests: XCTestCase {
    /// A job's phase is a closed set in the code and the text the API always showed on the wire, both ways.
    func testJobPhaseKeepsItsText() throws {
        let table: [(JobPhase, String, UInt)] = [
            (.reading, "reading", #line), (.checkingIdentity, "checking identity", #line),
            (.readingCurrentValues, "reading current values", #line), (.writing, "writing", #line),
            (.verifying, "verifying", #line), (.rollingBack, "rolling back", #line), (.page("heating"), "page heating", #line),
            (.done, "done", #line), (.other("calibrating"), "calibrating", #line),
        ]
        for (phase, text, line) in table {
            XCTAssertEqual(phase.description, text, line: line)
            XCTAssertEqual(JobPhase(text), phase, line: line)
            let json = try JSONEncoder().encode(JobProgress(phase: phase, done: 1, total: 2))
            XCTAssertTrue(String(decoding: json, as: UTF8.self).contains("\"phase\":\"\(text)\""), line: line)
            XCTAssertEqual(try JSONDecoder().decode(JobProgress.self, from: json).phase, phase, line: line)
        }
    }

}
