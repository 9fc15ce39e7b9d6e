import XCTest

@testable import LastsetCore

/// A plan told its entries' ids are unique builds no index of them: its requests, windows, lookups and
/// re-planning are those of the plan with the index. And the write planner, reading its runs in place,
/// plans what it planned before (the same table as the runs it copied).
final class ReplayPlanUniqueIdsTests: XCTestCase {
    private func limits(write: Int = 123, function: WriteFunction = .auto) -> DeviceLimits {
        var l = DeviceLimits()
        l.maxReadRegisters = 40
        l.maxWriteRegisters = write
        l.maxGap = 2
        l.writeFunction = function
        return l
    }

    /// Registers of 1, 2 and 4 words, runs broken by gaps and by a long string register, an empty write.
    private let entries: [PlannedWrite] = {
        var out: [PlannedWrite] = []
        var address = 0
        for i in 0..<300 {
            let length = i % 37 == 5 ? 130 : i % 7 == 3 ? 4 : i % 3 == 1 ? 2 : 1
            if i % 50 == 20 { address += 5 }
            out.append(
                PlannedWrite(registerId: "r\(i)", address: address, words: (0..<length).map { UInt16(truncatingIfNeeded: i &* 31 &+ $0) }))
            address += length
        }
        out.insert(PlannedWrite(registerId: "empty", address: address, words: []), at: 100)
        return out
    }()

    func testAPlanWithoutTheIndexPlansAndFindsTheSame() {
        for (name, l) in [("auto", limits()), ("fc16 short", limits(write: 10, function: .fc16)), ("fc06", limits(function: .fc06))] {
            let indexed = ReplayPlan(entries: entries, limits: l)
            var plain = ReplayPlan(entries: entries, limits: l, uniqueIds: true)
            XCTAssertEqual(plain.writes, indexed.writes, name)
            XCTAssertEqual(plain.reads, indexed.reads, name)
            XCTAssertEqual(plain.windows(), indexed.windows(), name)
            XCTAssertEqual(plain.counts, indexed.counts, name)
            for (k, e) in entries.enumerated() {
                for hint in [-1, 0, k - 1, k, k + 1, entries.count + 3] {
                    XCTAssertEqual(plain.entryIndex(e.registerId, hint: hint), indexed.entryIndex(e.registerId, hint: hint), "\(name) \(k) \(hint)")
                }
                XCTAssertEqual(plain.entry(e.registerId), indexed.entry(e.registerId), name)
            }
            XCTAssertNil(plain.entryIndex("nope", hint: 3))
            XCTAssertEqual(plain.finalPass(entries.map(\.registerId), limits: l), indexed.finalPass(entries.map(\.registerId), limits: l))
            var replanned = indexed
            for start in [0, 1, plain.writes.count / 2, plain.writes.count - 1] {
                var fallback = l
                fallback.writeFunction = .fc06
                var shorter = l
                shorter.maxWriteRegisters = 3
                for to in [fallback, shorter] {
                    var a = plain
                    var b = replanned
                    a.replan(from: start, limits: to)
                    b.replan(from: start, limits: to)
                    XCTAssertEqual(a.writes, b.writes, "\(name) replan from \(start)")
                    XCTAssertEqual(a.windows(from: start), b.windows(from: start), "\(name) replan from \(start)")
                }
            }
            plain.replan(from: 2, limits: limits(write: 5))
            replanned.replan(from: 2, limits: limits(write: 5))
            XCTAssertEqual(plain.writes, replanned.writes, name)
        }
    }

    /// The write planner's runs, as it planned them when it copied each write into a run array.
    func testWritesPlanTheRunsTheyPlannedBefore() {
        func reference(_ writes: [PlannedWrite], _ limits: DeviceLimits) -> [WriteRequest] {
            let maxCount = max(1, limits.maxWriteRegisters)
            let items = writes.filter { !$0.words.isEmpty }
            if limits.writeFunction == .fc06 {
                return items.flatMap { w in
                    w.words.enumerated().map { i, word in
                        WriteRequest(function: .fc06, address: w.address + i, words: [word], registerIds: [w.registerId])
                    }
                }
            }
            var requests: [WriteRequest] = []
            var run: [PlannedWrite] = []
            func flush() {
                guard let first = run.first else { return }
                defer { run = [] }
                let words = run.flatMap(\.words)
                if words.count > maxCount {
                    var offset = 0
                    while offset < words.count {
                        let count = min(maxCount, words.count - offset)
                        requests.append(
                            WriteRequest(
                                function: .fc16, address: first.address + offset, words: Array(words[offset..<offset + count]),
                                registerIds: [first.registerId]))
                        offset += count
                    }
                    return
                }
                let single = run.count == 1 && words.count == 1 && limits.writeFunction == .auto
                requests.append(
                    WriteRequest(
                        function: single ? .fc06 : .fc16, address: first.address, words: words, registerIds: run.map(\.registerId)))
            }
            var runEnd = 0
            var runWords = 0
            for w in items {
                if !run.isEmpty && w.address == runEnd && runWords + w.words.count <= maxCount {
                    run.append(w)
                } else {
                    flush()
                    run = [w]
                    runWords = 0
                }
                runEnd = w.address + w.words.count
                runWords += w.words.count
            }
            flush()
            return requests
        }
        let lone = [PlannedWrite(registerId: "one", address: 5, words: [1])]
        for l in [limits(), limits(write: 1), limits(write: 4, function: .fc16), limits(write: 200), limits(function: .fc06)] {
            for list in [entries, lone, [], Array(entries.reversed()), entries.filter { $0.words.count == 1 }] {
                XCTAssertEqual(RequestPlanner.writes(list, limits: l), reference(list, l), "\(l.writeFunction) \(l.maxWriteRegisters) \(list.count)")
            }
        }
    }
}
