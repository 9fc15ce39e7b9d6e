import TestSupport
import XCTest

@testable import LastsetCore

final class RequestPlannerTests: XCTestCase {
    private func limits(read: Int = 125, write: Int = 123, gap: Int = 8, function: WriteFunction = .auto) -> DeviceLimits {
        var l = DeviceLimits()
        l.maxReadRegisters = read
        l.maxWriteRegisters = write
        l.maxGap = gap
        l.writeFunction = function
        return l
    }

    private func spans(_ pairs: [(Int, Int)]) -> [AddressSpan] { pairs.map { AddressSpan(address: $0.0, length: $0.1) } }

    // MARK: reads

    func testReadTable() {
        let table: [(spans: [(Int, Int)], read: Int, gap: Int, expected: [(Int, Int)], line: UInt)] = [
            ([], 125, 8, [], #line),
            ([(100, 1)], 125, 8, [(100, 1)], #line),
            // The heating page of design.md §4: 100, 101, 102-103, 110-117, 200.
            ([(100, 1), (101, 1), (102, 2), (110, 8), (200, 1)], 125, 8, [(100, 18), (200, 1)], #line),
            ([(100, 1), (101, 1), (102, 2), (110, 8), (200, 1)], 125, 5, [(100, 4), (110, 8), (200, 1)], #line),
            ([(100, 1), (101, 1), (102, 2), (110, 8), (200, 1)], 125, 6, [(100, 18), (200, 1)], #line),
            // Unsorted input is sorted; exactly maxGap is bridged, maxGap + 1 is not.
            ([(10, 1), (0, 1)], 125, 9, [(0, 11)], #line),
            ([(10, 1), (0, 1)], 125, 8, [(0, 1), (10, 1)], #line),
            // The size limit closes a request; a span is never split.
            ([(0, 2), (2, 2), (4, 2)], 5, 0, [(0, 4), (4, 2)], #line),
            ([(0, 2), (2, 2), (4, 2)], 6, 0, [(0, 6)], #line),
            // Duplicates and overlaps.
            ([(5, 2), (5, 2), (5, 1), (6, 1)], 125, 0, [(5, 2)], #line),
            ([(0, 4), (2, 4)], 6, 0, [(0, 6)], #line),
            ([(0, 4), (2, 4)], 4, 0, [(0, 4), (2, 4)], #line),
            // Overlapping spans need not be read together (merging them first would cost a request).
            ([(0, 2), (2, 2), (3, 3), (6, 2)], 5, 0, [(0, 4), (3, 5)], #line),
            // A span longer than the limit is read alone in full-size chunks.
            ([(0, 1), (10, 100), (200, 1)], 40, 8, [(0, 1), (10, 40), (50, 40), (90, 20), (200, 1)], #line),
            // Zero-length spans are ignored.
            ([(0, 0), (3, 1)], 125, 8, [(3, 1)], #line),
            // The last address.
            ([(65534, 2)], 125, 8, [(65534, 2)], #line),
        ]
        for c in table {
            XCTAssertEqual(
                RequestPlanner.reads(spans(c.spans), limits: limits(read: c.read, gap: c.gap)), spans(c.expected),
                line: c.line)
        }
    }

    func testTenThousandRegisterPages() {
        let u16 = (0..<10_000).map { AddressSpan(address: $0, length: 1) }
        let u32 = (0..<5_000).map { AddressSpan(address: 2 * $0, length: 2) }
        let f64 = (0..<2_500).map { AddressSpan(address: 4 * $0, length: 4) }
        // Every other register: gaps of 1, bridged when maxGap >= 1.
        let sparse = (0..<10_000).map { AddressSpan(address: 2 * $0, length: 1) }
        let table: [([AddressSpan], Int, Int, Int, UInt)] = [
            (u16, 125, 8, 80, #line),  // ceil(10000 / 125)
            (u16, 40, 8, 250, #line),  // 10000 / 40
            (u16, 123, 0, 82, #line),  // ceil(10000 / 123)
            (u32, 125, 8, 81, #line),  // 62 u32 per request: ceil(5000 / 62)
            (u32, 40, 8, 250, #line),  // 20 per request
            (f64, 125, 8, 81, #line),  // 31 per request: ceil(2500 / 31)
            (f64, 40, 8, 250, #line),  // 10 per request
            (sparse, 125, 1, 159, #line),  // 63 per request of 125 registers: ceil(10000 / 63)
            (sparse, 40, 1, 500, #line),  // 20 per request of 39 registers
            (sparse, 125, 0, 10_000, #line),  // no gap may be bridged
        ]
        for (input, read, gap, count, line) in table {
            let l = limits(read: read, gap: gap)
            let plan = RequestPlanner.reads(input.shuffled(), limits: l)
            XCTAssertEqual(plan.count, count, line: line)
            assertValid(plan, covers: input, limits: l, line: line)
        }
    }

    func testGreedyIsMinimalAgainstBruteForce() {
        var rng = SplitMix(seed: 7)
        var compared = 0
        for round in 0..<3000 {
            let n = Int.random(in: 1...7, using: &rng)
            let overlaps = round % 3 == 0
            var input: [AddressSpan] = []
            var address = 0
            for _ in 0..<n {
                if overlaps {
                    input.append(
                        AddressSpan(address: Int.random(in: 0...20, using: &rng), length: Int.random(in: 1...4, using: &rng)))
                } else {
                    address += Int.random(in: 0...4, using: &rng)
                    let length = Int.random(in: 1...4, using: &rng)
                    input.append(AddressSpan(address: address, length: length))
                    address += length
                }
            }
            let l = limits(read: Int.random(in: 4...10, using: &rng), gap: Int.random(in: 0...3, using: &rng))
            let plan = RequestPlanner.reads(input.shuffled(using: &rng), limits: l)
            assertValid(plan, covers: input, limits: l)
            XCTAssertEqual(plan.count, bruteForceMinimum(input, limits: l), "\(input) \(l.maxReadRegisters) \(l.maxGap)")
            compared += 1
        }
        XCTAssertEqual(compared, 3000)
    }

    /// Every request within the limits, bridging no gap wider than maxGap, and every span read whole.
    private func assertValid(_ plan: [AddressSpan], covers input: [AddressSpan], limits l: DeviceLimits, line: UInt = #line) {
        var used = Set<Int>()
        for s in input { used.formUnion(s.address..<s.end) }
        for r in plan {
            XCTAssertLessThanOrEqual(r.length, l.maxReadRegisters, line: line)
            XCTAssertGreaterThan(r.length, 0, line: line)
            XCTAssertTrue(used.contains(r.address) && used.contains(r.end - 1), "\(r) reads unused ends", line: line)
            var gap = 0
            for a in r.address..<r.end {
                gap = used.contains(a) ? 0 : gap + 1
                XCTAssertLessThanOrEqual(gap, l.maxGap, "\(r) bridges a wide gap", line: line)
            }
        }
        for s in input where s.length <= l.maxReadRegisters {
            // Requests are sorted: only those starting in (s.end - maxRead) ... s.address can hold s.
            var lo = 0
            var hi = plan.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if plan[mid].address <= s.address { lo = mid + 1 } else { hi = mid }
            }
            var k = lo - 1
            var found = false
            while k >= 0 && plan[k].address >= s.end - l.maxReadRegisters {
                if s.end <= plan[k].end { found = true }
                k -= 1
            }
            XCTAssertTrue(found, "\(s) not read whole", line: line)
        }
        XCTAssertEqual(plan, plan.sorted { $0.address < $1.address }, line: line)
    }

    /// The optimum by set cover over every feasible request (start at a span start, end at a span end).
    private func bruteForceMinimum(_ input: [AddressSpan], limits l: DeviceLimits) -> Int {
        var used = Set<Int>()
        for s in input { used.formUnion(s.address..<s.end) }
        var masks: [Int] = []
        for start in Set(input.map(\.address)) {
            for end in Set(input.map(\.end)) where end > start && end - start <= l.maxReadRegisters {
                var gap = 0
                var ok = true
                for a in start..<end {
                    gap = used.contains(a) ? 0 : gap + 1
                    if gap > l.maxGap { ok = false }
                }
                guard ok else { continue }
                var mask = 0
                for (i, s) in input.enumerated() where start <= s.address && s.end <= end { mask |= 1 << i }
                masks.append(mask)
            }
        }
        let full = (1 << input.count) - 1
        var best = [Int](repeating: Int.max, count: full + 1)
        best[0] = 0
        for m in 0...full where best[m] != Int.max {
            for w in masks where m | w != m { best[m | w] = min(best[m | w], best[m] + 1) }
        }
        return best[full]
    }

    // MARK: writes

    private func w(_ id: String, _ address: Int, _ words: [UInt16]) -> PlannedWrite {
        PlannedWrite(registerId: id, address: address, words: words)
    }

    func testWriteTable() {
        let page = [
            w("mode", 100, [1]), w("setpoint", 101, [200]), w("energy", 102, [0, 5]), w("label", 110, [0x4142, 0]),
            w("unit", 200, [7]),
        ]
        let table: [([PlannedWrite], DeviceLimits, [WriteRequest], UInt)] = [
            ([], limits(), [], #line),
            (
                page, limits(),
                [
                    WriteRequest(
                        function: .fc16, address: 100, words: [1, 200, 0, 5], registerIds: ["mode", "setpoint", "energy"]),
                    WriteRequest(function: .fc16, address: 110, words: [0x4142, 0], registerIds: ["label"]),
                    WriteRequest(function: .fc06, address: 200, words: [7], registerIds: ["unit"]),
                ], #line
            ),
            (
                page, limits(function: .fc16),
                [
                    WriteRequest(
                        function: .fc16, address: 100, words: [1, 200, 0, 5], registerIds: ["mode", "setpoint", "energy"]),
                    WriteRequest(function: .fc16, address: 110, words: [0x4142, 0], registerIds: ["label"]),
                    WriteRequest(function: .fc16, address: 200, words: [7], registerIds: ["unit"]),
                ], #line
            ),
            (
                page, limits(function: .fc06),
                [
                    WriteRequest(function: .fc06, address: 100, words: [1], registerIds: ["mode"]),
                    WriteRequest(function: .fc06, address: 101, words: [200], registerIds: ["setpoint"]),
                    WriteRequest(function: .fc06, address: 102, words: [0], registerIds: ["energy"]),
                    WriteRequest(function: .fc06, address: 103, words: [5], registerIds: ["energy"]),
                    WriteRequest(function: .fc06, address: 110, words: [0x4142], registerIds: ["label"]),
                    WriteRequest(function: .fc06, address: 111, words: [0], registerIds: ["label"]),
                    WriteRequest(function: .fc06, address: 200, words: [7], registerIds: ["unit"]),
                ], #line
            ),
            // The size limit: a register's words are never split, the run is cut before it.
            (
                page, limits(write: 3),
                [
                    WriteRequest(function: .fc16, address: 100, words: [1, 200], registerIds: ["mode", "setpoint"]),
                    WriteRequest(function: .fc16, address: 102, words: [0, 5], registerIds: ["energy"]),
                    WriteRequest(function: .fc16, address: 110, words: [0x4142, 0], registerIds: ["label"]),
                    WriteRequest(function: .fc06, address: 200, words: [7], registerIds: ["unit"]),
                ], #line
            ),
            (
                page, limits(write: 1),
                [
                    WriteRequest(function: .fc06, address: 100, words: [1], registerIds: ["mode"]),
                    WriteRequest(function: .fc06, address: 101, words: [200], registerIds: ["setpoint"]),
                    WriteRequest(function: .fc16, address: 102, words: [0], registerIds: ["energy"]),
                    WriteRequest(function: .fc16, address: 103, words: [5], registerIds: ["energy"]),
                    WriteRequest(function: .fc16, address: 110, words: [0x4142], registerIds: ["label"]),
                    WriteRequest(function: .fc16, address: 111, words: [0], registerIds: ["label"]),
                    WriteRequest(function: .fc06, address: 200, words: [7], registerIds: ["unit"]),
                ], #line
            ),
            // Page order is kept: a descending pair is not merged, nor are non-adjacent registers.
            (
                [w("b", 11, [2]), w("a", 10, [1])], limits(),
                [
                    WriteRequest(function: .fc06, address: 11, words: [2], registerIds: ["b"]),
                    WriteRequest(function: .fc06, address: 10, words: [1], registerIds: ["a"]),
                ], #line
            ),
            (
                [w("a", 10, [1]), w("c", 12, [3]), w("b", 11, [2])], limits(),
                [
                    WriteRequest(function: .fc06, address: 10, words: [1], registerIds: ["a"]),
                    WriteRequest(function: .fc06, address: 12, words: [3], registerIds: ["c"]),
                    WriteRequest(function: .fc06, address: 11, words: [2], registerIds: ["b"]),
                ], #line
            ),
            // Empty writes are dropped and do not break a run.
            (
                [w("a", 10, [1]), w("x", 11, []), w("b", 11, [2])], limits(),
                [
                    WriteRequest(function: .fc16, address: 10, words: [1, 2], registerIds: ["a", "b"])
                ], #line
            ),
        ]
        for (input, l, expected, line) in table {
            XCTAssertEqual(RequestPlanner.writes(input, limits: l), expected, line: line)
        }
    }

    func testTenThousandRegisterWrites() {
        let u16 = (0..<10_000).map { w("r\($0)", $0, [UInt16($0)]) }
        let u32 = (0..<5_000).map { w("r\($0)", 2 * $0, [0, UInt16($0)]) }
        let table: [([PlannedWrite], DeviceLimits, Int, UInt)] = [
            (u16, limits(), 82, #line),  // ceil(10000 / 123)
            (u16, limits(write: 40), 250, #line),
            (u16, limits(function: .fc06), 10_000, #line),
            (u32, limits(), 82, #line),  // 61 u32 per request: ceil(5000 / 61)
            (u32, limits(write: 40), 250, #line),
            (u32, limits(function: .fc06), 10_000, #line),
        ]
        for (input, l, count, line) in table {
            let plan = RequestPlanner.writes(input, limits: l)
            XCTAssertEqual(plan.count, count, line: line)
            XCTAssertEqual(plan.flatMap(\.words), input.flatMap(\.words), line: line)
            XCTAssertTrue(plan.allSatisfy { $0.words.count <= l.maxWriteRegisters }, line: line)
            XCTAssertEqual(
                plan.flatMap(\.registerIds).count, l.writeFunction == .fc06 ? input.flatMap(\.words).count : input.count,
                line: line)
        }
    }

    func testLongRegisterIsChunkedAlone() {
        let words = (0..<125).map { UInt16($0) }
        let plan = RequestPlanner.writes([w("a", 0, [9]), w("long", 1, words), w("b", 126, [8])], limits: limits())
        XCTAssertEqual(plan.map(\.address), [0, 1, 124, 126])
        XCTAssertEqual(plan.map(\.words.count), [1, 123, 2, 1])
        XCTAssertEqual(plan.map(\.function), [.fc06, .fc16, .fc16, .fc06])
        XCTAssertEqual(plan.map(\.registerIds), [["a"], ["long"], ["long"], ["b"]])
    }

    /// A shorter limit (learned, or tried after a refused merged write) never splits a register: one longer
    /// than it but not than the declared limit is written alone, whole; only a register longer than the
    /// declared limit is chunked, in chunks of the shorter limit (issue 19, defect 4).
    func testAShorterLimitNeverSplitsARegisterTheDeclaredLimitTakesWhole() {
        let s64 = w("c", 4, [1, 2, 3, 4])
        let page = [w("a", 0, [9, 9]), w("b", 2, [8, 8]), s64, w("d", 8, [7])]
        let table: [(Int, Int?, [String], UInt)] = [
            // write limit, declared limit, requests as "fc@address+count"
            (123, nil, ["fc16@0+9"], #line),
            (4, nil, ["fc16@0+4", "fc16@4+4", "fc06@8+1"], #line),
            (2, 123, ["fc16@0+2", "fc16@2+2", "fc16@4+4", "fc06@8+1"], #line),
            (1, 123, ["fc16@0+2", "fc16@2+2", "fc16@4+4", "fc06@8+1"], #line),
            (1, 4, ["fc16@0+2", "fc16@2+2", "fc16@4+4", "fc06@8+1"], #line),
            // Longer than the declared limit: chunked (the only split).
            (2, 3, ["fc16@0+2", "fc16@2+2", "fc16@4+2", "fc16@6+2", "fc06@8+1"], #line),
            (2, nil, ["fc16@0+2", "fc16@2+2", "fc16@4+2", "fc16@6+2", "fc06@8+1"], #line),
        ]
        for (write, declared, expected, line) in table {
            let plan = RequestPlanner.writes(page, limits: limits(write: write), declaredMaxWrite: declared)
            XCTAssertEqual(
                plan.map { "\($0.function.rawValue)@\($0.address)+\($0.words.count)" }, expected, line: line)
        }
    }
}
