import XCTest

@testable import LastsetCore

/// When a replay's written registers are read back and checked (`ReadBackReadiness`, issue 21): the reads a window
/// sends, whole or stopped early, and the registers each window makes ready, in the order they started waiting.
final class ReadBackReadinessTests: XCTestCase {
    private func limits(read: Int = 125, write: Int = 123, gap: Int = 8) -> DeviceLimits {
        var l = DeviceLimits()
        l.maxReadRegisters = read
        l.maxWriteRegisters = write
        l.maxGap = gap
        return l
    }

    /// Registers at `addresses` (page order), `length` words each, ids `r<address>`.
    private func plan(_ addresses: [Int], length: Int = 1, _ limits: DeviceLimits) -> ReplayPlan {
        ReplayPlan(
            entries: addresses.map { PlannedWrite(registerId: "r\($0)", address: $0, words: [UInt16](repeating: 1, count: length)) },
            limits: limits, uniqueIds: true)
    }

    /// One window as sent: which of the plan's windows, the first write not sent (nil: all of them), a write sent
    /// without an answer; then the reads it sends, the registers it makes ready and the reads left open.
    private struct Sent {
        var window: Int
        var sentBefore: Int?
        var unanswered: Int?
        var reads: [Int]
        var ready: [Int]
        var open: Set<Int>
        var line: UInt
    }

    func testWindowTable() {
        let table: [(name: String, plan: ReplayPlan, sent: [Sent])] = [
            (
                "two reads, a write each: each register after its own read",
                plan([50, 60], limits()),
                [
                    Sent(window: 0, reads: [0], ready: [0], open: [], line: #line),
                    Sent(window: 1, reads: [1], ready: [1], open: [], line: #line),
                ]
            ),
            (
                "one read over two writes: both after it",
                plan([50, 55], limits()),
                [Sent(window: 0, reads: [0], ready: [0, 1], open: [], line: #line)]
            ),
            (
                "page order against address order (60, 50, 61): read 1 again after the third write",
                plan([60, 50, 61], limits()),
                [
                    Sent(window: 0, reads: [1], ready: [0], open: [], line: #line),
                    Sent(window: 1, reads: [0], ready: [1], open: [], line: #line),
                    Sent(window: 2, reads: [1], ready: [2], open: [], line: #line),
                ]
            ),
            (
                "an FC16 across a read boundary: registers 4 and 5 wait for read 1, then go first",
                plan(Array(0..<12), limits(read: 4, write: 6, gap: 0)),
                [
                    Sent(window: 0, reads: [0], ready: [0, 1, 2, 3], open: [1], line: #line),
                    Sent(window: 1, reads: [1, 2], ready: [4, 5, 6, 7, 8, 9, 10, 11], open: [], line: #line),
                ]
            ),
            (
                "a register longer than the limits, written in two parts: read back once, after both",
                plan([110], length: 4, limits(read: 3, write: 3)),
                [Sent(window: 0, reads: [0, 1], ready: [0], open: [], line: #line)]
            ),
            (
                "the second write refused (an exception): only what was sent is read, the refused register never waits",
                plan([50, 55], limits()),
                [Sent(window: 0, sentBefore: 1, reads: [0], ready: [0], open: [], line: #line)]
            ),
            (
                "the second write unanswered: it may be stored, so it is read back and checked",
                plan([50, 60, 70], limits(gap: 0)),
                [
                    Sent(window: 0, reads: [0], ready: [0], open: [], line: #line),
                    Sent(window: 1, sentBefore: 1, unanswered: 1, reads: [1], ready: [1], open: [], line: #line),
                ]
            ),
            (
                "the first write not sent (shutdown, journal): the carried-in read only; nothing new waits",
                plan(Array(0..<12), limits(read: 4, write: 6, gap: 0)),
                [
                    Sent(window: 0, reads: [0], ready: [0, 1, 2, 3], open: [1], line: #line),
                    Sent(window: 1, sentBefore: 1, reads: [1], ready: [4, 5], open: [], line: #line),
                ]
            ),
            (
                "the first write unanswered: its reads and the carried-in one",
                plan(Array(0..<12), limits(read: 4, write: 6, gap: 0)),
                [
                    Sent(window: 0, reads: [0], ready: [0, 1, 2, 3], open: [1], line: #line),
                    Sent(window: 1, sentBefore: 1, unanswered: 1, reads: [1, 2], ready: [4, 5, 6, 7, 8, 9, 10, 11], open: [], line: #line),
                ]
            ),
        ]
        for c in table {
            var readiness = ReadBackReadiness(c.plan)
            let windows = c.plan.windows()
            for s in c.sent {
                let window = windows[s.window]
                let next = s.sentBefore ?? window.writes.upperBound
                let reads = ReadBackReadiness.reads(after: window, in: c.plan, sentBefore: next, unanswered: s.unanswered)
                XCTAssertEqual(reads, s.reads, "reads: \(c.name)", line: s.line)
                let ready = readiness.record(window, in: c.plan, sentBefore: next, unanswered: s.unanswered, readsSent: reads)
                XCTAssertEqual(ready, s.ready, "ready: \(c.name)", line: s.line)
                XCTAssertEqual(readiness.openReads, s.open, "open: \(c.name)", line: s.line)
            }
        }
    }

    /// A register written, then not read back (its reads not sent), waits; written again in a later window it is
    /// checked once, after the reads that follow its last write.
    func testARegisterWaitsForTheReadsAfterItsLastWrite() {
        let p = plan([10, 20], limits(gap: 0))
        let windows = p.windows()
        XCTAssertEqual(windows.map(\.writes), [0..<1, 1..<2])
        var readiness = ReadBackReadiness(p)
        // Window 0 sent its write, and no read (as if the read were not due): register 0 waits, read 0 is open.
        XCTAssertEqual(readiness.record(windows[0], in: p, sentBefore: 1, unanswered: nil, readsSent: []), [])
        XCTAssertEqual(readiness.openReads, [0])
        // Window 1 sends read 1 only: register 1 is ready, register 0 still waits.
        XCTAssertEqual(readiness.record(windows[1], in: p, sentBefore: 2, unanswered: nil, readsSent: [1]), [1])
        XCTAssertEqual(readiness.openReads, [0])
        // The carried read, sent after the last window (a re-plan's `windows(from:pending:)`): register 0 at last.
        let tail = p.windows(from: 2, pending: readiness.openReads.sorted())
        XCTAssertEqual(tail, [ReplayPlan.Window(writes: 2..<2, reads: [0], carriedIn: [0])])
        XCTAssertEqual(readiness.record(tail[0], in: p, sentBefore: 2, unanswered: nil, readsSent: tail[0].reads), [0])
        XCTAssertEqual(readiness.openReads, [])
    }

    /// Over whole plans sent without a failure, every register is checked exactly once, after the last write
    /// touching any read covering it — the property the verification windows promise.
    func testEveryRegisterIsCheckedOnceAfterItsReads() {
        for l in [limits(read: 40), limits(read: 7, write: 5, gap: 0), limits(read: 3, write: 3)] {
            for length in [1, 2, 4] {
                let p = plan(stride(from: 0, to: 300, by: length).map { $0 }, length: length, l)
                var readiness = ReadBackReadiness(p)
                var checked: [Int] = []
                for window in p.windows() {
                    let reads = ReadBackReadiness.reads(
                        after: window, in: p, sentBefore: window.writes.upperBound, unanswered: nil)
                    XCTAssertEqual(reads, window.reads)
                    checked += readiness.record(
                        window, in: p, sentBefore: window.writes.upperBound, unanswered: nil, readsSent: reads)
                }
                XCTAssertEqual(checked.sorted(), Array(p.entries.indices), "\(l) length \(length)")
                XCTAssertEqual(Set(checked).count, checked.count, "\(l) length \(length): checked twice")
                XCTAssertEqual(readiness.openReads, [], "\(l) length \(length)")
            }
        }
    }
}
