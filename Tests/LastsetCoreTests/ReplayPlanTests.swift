import XCTest

@testable import LastsetCore

/// The replay's request plan: verification windows, re-planning and the request counts against their
/// minimums (snapshot = capture minimum, minimum writes, minimum window reads, final pass).
final class ReplayPlanTests: XCTestCase {
    private func limits(read: Int = 125, write: Int = 123, gap: Int = 8, function: WriteFunction = .auto) -> DeviceLimits {
        var l = DeviceLimits()
        l.maxReadRegisters = read
        l.maxWriteRegisters = write
        l.maxGap = gap
        l.writeFunction = function
        return l
    }

    /// u16 registers at `addresses`, in that (page) order.
    private func entries(_ addresses: [Int], length: Int = 1) -> [PlannedWrite] {
        addresses.map { PlannedWrite(registerId: "r\($0)", address: $0, words: [UInt16](repeating: 7, count: length)) }
    }

    func testCountsAgainstTheirMinimums() {
        let scattered = (0..<20).map { 3000 + 5 * $0 }  // not contiguous: one FC06 each; one read (gaps of 4)
        let table: [(name: String, entries: [PlannedWrite], limits: DeviceLimits, expected: ReplayPlan.Counts, line: UInt)] = [
            // issue 13: a 2,000-register page plus 20 scattered registers: 17 reads each way (16 + 1),
            // 17 + 20 writes. Before windows the verify reads alone were 36.
            (
                "2000 + 20 scattered", entries(Array(0..<2000) + scattered), limits(),
                .init(snapshot: 17, writes: 37, windowReads: 17, finalPass: 17), #line
            ),
            // 10,000 registers at 40 per read: 250 reads each way, 82 FC16 of up to 123 (was 326 read-backs).
            (
                "10000 at 40", entries(Array(0..<10_000)), limits(read: 40),
                .init(snapshot: 250, writes: 82, windowReads: 250, finalPass: 250), #line
            ),
            // FC06 only: one write per word, still one read-back per read of the plan.
            (
                "fc06", entries(Array(0..<300)), limits(function: .fc06),
                .init(snapshot: 3, writes: 300, windowReads: 3, finalPass: 3), #line
            ),
            // A page with gaps: every other register, maxGap 1 merges them into reads of 125.
            (
                "gaps", entries(stride(from: 0, to: 1000, by: 2).map { $0 }), limits(gap: 1),
                .init(snapshot: 8, writes: 500, windowReads: 8, finalPass: 8), #line
            ),
            // u32 registers (two words) written word by word stay in one window with their read.
            (
                "u32 fc06", entries(stride(from: 0, to: 200, by: 2).map { $0 }, length: 2), limits(read: 40, function: .fc06),
                .init(snapshot: 5, writes: 200, windowReads: 5, finalPass: 5), #line
            ),
            // The heating page of design.md: 100, 101, 102-103, 110-117, 120: one read, three writes.
            (
                "heating",
                [
                    PlannedWrite(registerId: "mode", address: 100, words: [2]),
                    PlannedWrite(registerId: "setpoint", address: 101, words: [1]),
                    PlannedWrite(registerId: "energy", address: 102, words: [1, 2]),
                    PlannedWrite(registerId: "label", address: 110, words: [UInt16](repeating: 1, count: 8)),
                    PlannedWrite(registerId: "hysteresis", address: 120, words: [12]),
                ], limits(), .init(snapshot: 1, writes: 3, windowReads: 1, finalPass: 1), #line
            ),
        ]
        for c in table {
            let plan = ReplayPlan(entries: c.entries, limits: c.limits)
            XCTAssertEqual(plan.counts, c.expected, c.name, line: c.line)
            // The minimums: the capture plan for the reads, the write planner for the writes.
            let capture = RequestPlanner.reads(
                c.entries.map { AddressSpan(address: $0.address, length: $0.words.count) }, limits: c.limits)
            XCTAssertEqual(plan.counts.snapshot, capture.count, c.name, line: c.line)
            XCTAssertEqual(plan.counts.windowReads, capture.count, c.name, line: c.line)
            XCTAssertEqual(plan.counts.writes, RequestPlanner.writes(c.entries, limits: c.limits).count, c.name, line: c.line)
        }
    }

    func testWindowTable() {
        let table: [(entries: [PlannedWrite], limits: DeviceLimits, expected: [ReplayPlan.Window], line: UInt)] = [
            // Two reads (gap 9 > 8), a write each: write, read, write, read.
            (entries([50, 60]), limits(), [.init(writes: 0..<1, reads: [0]), .init(writes: 1..<2, reads: [1])], #line),
            // One read covering both: both writes, then the read.
            (entries([50, 55]), limits(), [.init(writes: 0..<2, reads: [0])], #line),
            // Page order against address order (60, 50, 61): each read as soon as the next write leaves it;
            // read 1 is touched again by the third write, so it is read again after it.
            (
                entries([60, 50, 61]), limits(),
                [
                    .init(writes: 0..<1, reads: [1]), .init(writes: 1..<2, reads: [0]),
                    .init(writes: 2..<3, reads: [1], carriedIn: []),
                ], #line
            ),
            // An FC16 crossing a read boundary (reads of 4, writes of 6): the shared read waits for the next write.
            (
                entries(Array(0..<12)), limits(read: 4, write: 6, gap: 0),
                [.init(writes: 0..<1, reads: [0]), .init(writes: 1..<2, reads: [1, 2], carriedIn: [1])], #line
            ),
            // A register longer than both limits (4 words, writes and reads of 3: writes 110+3, 113+1, reads
            // 110+3, 113+1): both parts written before either read, so its reads all follow its last write.
            // Before, read 0 was sent between the parts and the register was never read back whole (chaos seed 5).
            (entries([110], length: 4), limits(read: 3, write: 3), [.init(writes: 0..<2, reads: [0, 1])], #line),
            // The same at other boundaries (reads 110+2, 112+2).
            (entries([110], length: 4), limits(read: 2, write: 3), [.init(writes: 0..<2, reads: [0, 1])], #line),
            // A split register between two others: its window ends with its last part, not before.
            (
                [
                    PlannedWrite(registerId: "a", address: 100, words: [1]),
                    PlannedWrite(registerId: "label", address: 110, words: [1, 2, 3, 4]),
                    PlannedWrite(registerId: "b", address: 130, words: [5]),
                ], limits(read: 3, write: 3, gap: 0),
                [.init(writes: 0..<1, reads: [0]), .init(writes: 1..<3, reads: [1, 2]), .init(writes: 3..<4, reads: [3])], #line
            ),
        ]
        for c in table {
            XCTAssertEqual(ReplayPlan(entries: c.entries, limits: c.limits).windows(), c.expected, line: c.line)
        }
    }

    func testEveryReadIsSentOnceAndAfterTheLastWriteTouchingIt() {
        for l in [limits(read: 40), limits(read: 7, write: 5, gap: 0), limits(function: .fc06)] {
            let plan = ReplayPlan(entries: entries(Array(0..<500)), limits: l)
            var sent: [Int: Int] = [:]
            for w in plan.windows() {
                for r in w.reads {
                    XCTAssertNil(sent[r], "read \(r) sent twice")
                    sent[r] = w.writes.upperBound
                    let last = plan.writes.lastIndex { plan.touched($0).contains(r) }!
                    XCTAssertEqual(last + 1, w.writes.upperBound, "read \(r) sent right after the last write touching it")
                }
            }
            XCTAssertEqual(sent.count, plan.reads.count)
        }
    }

    func testFC06ReplanKeepsWhatWasSentAndRewritesTheRest() {
        var plan = ReplayPlan(
            entries: [
                PlannedWrite(registerId: "a", address: 0, words: [1]),
                PlannedWrite(registerId: "b", address: 10, words: [2, 3]),
                PlannedWrite(registerId: "c", address: 12, words: [4]),
            ], limits: limits())
        XCTAssertEqual(plan.writes.map(\.function), [.fc06, .fc16])
        var fc06 = limits()
        fc06.writeFunction = .fc06
        plan.replan(from: 1, limits: fc06)
        XCTAssertEqual(plan.writes.map { "\($0.function.rawValue)@\($0.address)" }, ["fc06@0", "fc06@10", "fc06@11", "fc06@12"])
        XCTAssertEqual(plan.writes.map(\.registerIds), [["a"], ["b"], ["b"], ["c"]])
        // The windows from the re-planned request on, with a's read still open: it is sent after the next
        // write (which does not touch it), b and c's read after the last.
        XCTAssertEqual(
            plan.windows(from: 1, pending: [0]),
            [
                ReplayPlan.Window(writes: 1..<2, reads: [0], carriedIn: [0]),
                ReplayPlan.Window(writes: 2..<4, reads: [1], carriedIn: [1]),
            ])
    }

    func testShorterWritesAfterAWriteRefusedAsTooLong() {
        var plan = ReplayPlan(entries: entries(Array(0..<60)), limits: limits())
        XCTAssertEqual(plan.writes.map(\.words.count), [60])
        var shorter = limits()
        shorter.maxWriteRegisters = 30
        plan.replan(from: 0, limits: shorter)
        XCTAssertEqual(plan.writes.map(\.words.count), [30, 30])
        XCTAssertEqual(plan.writes.map(\.address), [0, 30])
        XCTAssertEqual(plan.counts.writes, 2)
    }

    /// A merged write refused with exception 03 is re-planned on its own (`isolatingFirst`): its halves
    /// never merge with the write after it, so they stay inside its window — and no register is split
    /// below the declared limit. A (u32 @0), B (u32 @2), C (u16 @4), D (u16 @5), 5 registers per read and
    /// per write: FC16 0+5 then D; refused, halved to 2: A, B, C alone, then D — C's read is due before D
    /// is written. Without isolation C and D merge (FC16 4+2) and D is written before C is verified.
    func testAHalvedRefusedWriteStaysInsideItsWindow() {
        let entries = [
            PlannedWrite(registerId: "A", address: 0, words: [1, 2]),
            PlannedWrite(registerId: "B", address: 2, words: [3, 4]),
            PlannedWrite(registerId: "C", address: 4, words: [5]),
            PlannedWrite(registerId: "D", address: 5, words: [6]),
        ]
        let declared = limits(read: 5, write: 5)
        var plan = ReplayPlan(entries: entries, limits: declared)
        func shape(_ p: ReplayPlan) -> [String] { p.writes.map { "\($0.function.rawValue)@\($0.address)+\($0.words.count)" } }
        XCTAssertEqual(shape(plan), ["fc16@0+5", "fc06@5+1"])
        XCTAssertEqual(plan.windows().map(\.writes), [0..<1, 1..<2])
        var shorter = declared
        shorter.maxWriteRegisters = 2
        var merged = plan
        merged.replan(from: 0, limits: shorter)
        XCTAssertEqual(shape(merged), ["fc16@0+2", "fc16@2+2", "fc16@4+2"], "without isolation C and D merge")
        plan.replan(from: 0, limits: shorter, isolatingFirst: true)
        XCTAssertEqual(shape(plan), ["fc16@0+2", "fc16@2+2", "fc06@4+1", "fc06@5+1"])
        // C's read (0+5) is sent before D is written.
        XCTAssertEqual(plan.windows().map(\.writes), [0..<3, 3..<4])
        XCTAssertEqual(plan.windows().first?.reads, [0])

        // A limit below a register's length never splits it (the declared limit is 5).
        var tiny = plan
        var one = declared
        one.maxWriteRegisters = 1
        tiny.replan(from: 0, limits: one, isolatingFirst: true)
        XCTAssertEqual(shape(tiny), ["fc16@0+2", "fc16@2+2", "fc06@4+1", "fc06@5+1"])
        XCTAssertEqual(tiny.declaredMaxWrite, 5)
    }

    /// `replan(at:after:)`: what a refusal does to the plan — FC06 from the refused write on, its registers in
    /// shorter writes of their own (inside its window), nothing for a rejection — and the entries a write names.
    func testReplanAfterARefusal() {
        let declared = limits(read: 5, write: 5)
        let base = ReplayPlan(
            entries: [
                PlannedWrite(registerId: "A", address: 0, words: [1, 2]),
                PlannedWrite(registerId: "B", address: 2, words: [3, 4]),
                PlannedWrite(registerId: "C", address: 4, words: [5]),
                PlannedWrite(registerId: "D", address: 5, words: [6]),
            ], limits: declared, uniqueIds: true)
        func shape(_ p: ReplayPlan) -> [String] { p.writes.map { "\($0.function.rawValue)@\($0.address)+\($0.words.count)" } }
        XCTAssertEqual(shape(base), ["fc16@0+5", "fc06@5+1"])
        XCTAssertEqual(base.entryIndices(base.writes[0]), [0, 1, 2])
        XCTAssertEqual(base.entryIndices(base.writes[1]), [3])

        var fc06 = base
        fc06.replan(at: 0, after: .fallBackToFC06)
        var fc06Limits = declared
        fc06Limits.writeFunction = .fc06
        var expected = base
        expected.replan(from: 0, limits: fc06Limits)
        XCTAssertEqual(fc06, expected)
        XCTAssertTrue(fc06.writes.allSatisfy { $0.function == .fc06 })
        XCTAssertEqual(fc06.writeLimits.writeFunction, .fc06)

        var shorter = base
        shorter.replan(at: 0, after: .shorten(maxWriteRegisters: 2))
        XCTAssertEqual(shape(shorter), ["fc16@0+2", "fc16@2+2", "fc06@4+1", "fc06@5+1"], "isolated: C and D never merge")
        XCTAssertEqual(shorter.writeLimits.maxWriteRegisters, 2)
        XCTAssertEqual(shorter.entryIndices(shorter.writes[1]), [1])

        // After the first write: only the rest is re-planned.
        var tail = shorter
        tail.replan(at: 3, after: .fallBackToFC06)
        XCTAssertEqual(Array(tail.writes[..<3]), Array(shorter.writes[..<3]))

        var rejected = base
        rejected.replan(at: 0, after: .rejected)
        XCTAssertEqual(rejected, base)
    }

    func testWindowsAfterTheLastWriteSendTheOpenReads() {
        let plan = ReplayPlan(entries: entries([0, 1]), limits: limits())
        XCTAssertEqual(plan.windows(from: 2, pending: [0]), [ReplayPlan.Window(writes: 2..<2, reads: [0], carriedIn: [0])])
        XCTAssertEqual(plan.windows(from: 2, pending: []), [])
    }
}
