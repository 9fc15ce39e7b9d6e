import XCTest

@testable import LastsetCore

/// The recovery policy of `onError` (`RecoveryPolicy`, issue 21): whether a failure stops the writes, whether the
/// snapshot must be whole, and how a replay ends.
final class RecoveryPolicyTests: XCTestCase {
    func testPolicyTable() {
        typealias E = RecoveryPolicy.Ending
        // onError, stops at a failure, needs every value before (write, dry run), after a failed commit
        let table: [(OnError, Bool, Bool, Bool, E, UInt)] = [
            (.stop, true, false, false, .leave, #line),
            (.continue, false, false, false, .leave, #line),
            (.rollback, true, true, false, .rollBack, #line),
        ]
        for (onError, stops, needs, needsDry, afterCommit, line) in table {
            let p = RecoveryPolicy(onError)
            XCTAssertEqual(p.stopsAtFailure, stops, "\(onError)", line: line)
            XCTAssertEqual(p.needsEveryValueBefore(dryRun: false), needs, "\(onError)", line: line)
            XCTAssertEqual(p.needsEveryValueBefore(dryRun: true), needsDry, "\(onError) dry run", line: line)
            XCTAssertEqual(p.afterFailedCommit, afterCommit, "\(onError)", line: line)
        }
    }

    func testEndingTable() {
        // onError, every register verified, journal intact, ending
        let table: [(OnError, Bool, Bool, RecoveryPolicy.Ending, UInt)] = [
            // Every register verified and journaled: the commit, whatever the policy.
            (.stop, true, true, .commit, #line),
            (.continue, true, true, .commit, #line),
            (.rollback, true, true, .commit, #line),
            // A register not verified: no commit; the snapshot restored only under rollback.
            (.stop, false, true, .leave, #line),
            (.continue, false, true, .leave, #line),
            (.rollback, false, true, .rollBack, #line),
            // The journal broke: no commit either (writes stopped, the record would not tell it all).
            (.stop, true, false, .leave, #line),
            (.continue, true, false, .leave, #line),
            (.rollback, true, false, .rollBack, #line),
            (.rollback, false, false, .rollBack, #line),
            (.stop, false, false, .leave, #line),
        ]
        for (onError, verified, intact, ending, line) in table {
            XCTAssertEqual(
                RecoveryPolicy(onError).afterWrites(everyRegisterVerified: verified, journalIntact: intact), ending,
                "\(onError) verified \(verified) journal \(intact)", line: line)
        }
    }
}
