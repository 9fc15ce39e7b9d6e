import Foundation
import LastsetCore
import Synchronization
import XCTest

@testable import LastsetService

/// A job's progress reaches the job table in order, the latest last, one delivery at a time.
final class ProgressRelayTests: XCTestCase {
    func testReportsArriveInOrderTheLatestLastOneAtATime() async throws {
        struct Seen {
            var delivered: [Int] = []
            var running = 0
            var mostAtOnce = 0
        }
        let seen = Mutex(Seen())
        let relay = ProgressRelay { p in
            seen.withLock {
                $0.running += 1
                $0.mostAtOnce = max($0.mostAtOnce, $0.running)
            }
            try? await Task.sleep(for: .milliseconds(1))
            seen.withLock {
                $0.delivered.append(p.done)
                $0.running -= 1
            }
        }
        for done in 1...200 { relay.post(JobProgress(phase: .writing, done: done, total: 200)) }
        let deadline = Date().addingTimeInterval(10)
        while seen.withLock({ $0.delivered.last }) != 200 && Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let s = seen.withLock { $0 }
        XCTAssertEqual(s.delivered.last, 200, "the latest report is delivered")
        XCTAssertEqual(s.delivered, s.delivered.sorted(), "in order")
        XCTAssertEqual(Set(s.delivered).count, s.delivered.count, "each report at most once")
        XCTAssertEqual(s.mostAtOnce, 1, "one delivery at a time")
    }
}
