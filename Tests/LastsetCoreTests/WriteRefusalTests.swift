import XCTest

@testable import LastsetCore

/// The decision for a write answered with an exception, and when a shorter write limit is learned
/// (issue 19, defect 4): exception 03 on one register is a value rejection, never a split of its words.
final class WriteRefusalTests: XCTestCase {
    func testDecisionTable() {
        // function, exception, words, register lengths, writeFunction, fell back already, decision
        let table: [(WriteRequest.Function, UInt8, Int, [Int], WriteFunction, Bool, WriteRefusal, UInt)] = [
            // FC16 not implemented: FC06 from here on (under auto, once).
            (.fc16, 0x01, 4, [1, 1, 2], .auto, false, .fallBackToFC06, #line),
            (.fc16, 0x01, 2, [2], .auto, false, .fallBackToFC06, #line),
            (.fc16, 0x01, 4, [1, 1, 2], .auto, true, .rejected, #line),
            (.fc16, 0x01, 4, [1, 1, 2], .fc16, false, .rejected, #line),
            (.fc06, 0x01, 1, [1], .auto, false, .rejected, #line),
            // Exception 03 on one register: its value is refused — never split, whatever its length.
            (.fc16, 0x03, 2, [2], .auto, false, .rejected, #line),
            (.fc16, 0x03, 4, [4], .auto, false, .rejected, #line),
            (.fc16, 0x03, 1, [1], .fc16, false, .rejected, #line),
            (.fc06, 0x03, 1, [1], .auto, false, .rejected, #line),
            (.fc06, 0x03, 1, [2], .fc06, false, .rejected, #line),
            // A chunk of a register longer than the declared limit names one register: a rejection too.
            (.fc16, 0x03, 100, [250], .auto, false, .rejected, #line),
            // A merged write refused with 03: halved, never below its longest register.
            (.fc16, 0x03, 60, Array(repeating: 1, count: 60), .auto, false, .shorten(maxWriteRegisters: 30), #line),
            (.fc16, 0x03, 2, [1, 1], .auto, false, .shorten(maxWriteRegisters: 1), #line),
            (.fc16, 0x03, 3, [1, 1, 1], .auto, false, .shorten(maxWriteRegisters: 1), #line),
            (.fc16, 0x03, 8, [2, 2, 4], .auto, false, .shorten(maxWriteRegisters: 4), #line),
            (.fc16, 0x03, 4, [2, 2], .auto, false, .shorten(maxWriteRegisters: 2), #line),
            (.fc16, 0x03, 5, [1, 4], .auto, false, .shorten(maxWriteRegisters: 4), #line),
            (.fc16, 0x03, 5, [2, 2, 1], .auto, false, .shorten(maxWriteRegisters: 2), #line),
            (.fc16, 0x03, 5, [2, 2, 1], .fc16, true, .shorten(maxWriteRegisters: 2), #line),
            // Any other exception: the write failed (rejected with its code).
            (.fc16, 0x02, 4, [2, 2], .auto, false, .rejected, #line),
            (.fc16, 0x04, 4, [2, 2], .auto, false, .rejected, #line),
            (.fc16, 0x06, 2, [2], .auto, false, .rejected, #line),
        ]
        for (function, code, words, lengths, writeFunction, fellBack, expected, line) in table {
            XCTAssertEqual(
                WriteRefusal.decide(
                    function: function, exceptionCode: code, wordCount: words, registerLengths: lengths,
                    writeFunction: writeFunction, fellBackToFC06: fellBack), expected, line: line)
        }
    }

    /// A shorter limit never goes below a refused write's longest register, and never lets a write shrink
    /// to nothing: every `shorten` is at least every register's length and below the refused write's.
    func testAShortenedLimitNeverSplitsARegister() {
        for lengths in [[1, 1], [2, 1], [1, 2], [4, 4], [1, 1, 4], [2, 2, 2, 1], [8, 1, 1, 1, 1], [3, 3, 3]] {
            let words = lengths.reduce(0, +)
            guard
                case .shorten(let limit) = WriteRefusal.decide(
                    function: .fc16, exceptionCode: 3, wordCount: words, registerLengths: lengths, writeFunction: .auto,
                    fellBackToFC06: false)
            else { return XCTFail("\(lengths): not shortened") }
            XCTAssertGreaterThanOrEqual(limit, lengths.max()!, "\(lengths)")
            XCTAssertLessThan(limit, words, "\(lengths)")
        }
    }

    /// Table: the trials (limit, registers of the refused write), which registers were acknowledged whole,
    /// and the limit learned.
    func testEvidenceTable() {
        let table: [([(Int, [Int])], Set<Int>, Int?, UInt)] = [
            ([], [0, 1, 2], nil, #line),
            // Every register of the refused write acknowledged in the shorter writes: its length was at fault.
            ([(30, Array(0..<60))], Set(0..<60), 30, #line),
            // One of them rejected (or never written: the replay stopped): a value explains the refusal.
            ([(30, Array(0..<60))], Set(0..<59), nil, #line),
            ([(2, [0, 1])], [0], nil, #line),
            // Nested: 700+8 refused (limit 4), then 700+4 refused (limit 2); w.b rejected — nothing learned.
            ([(4, [0, 1, 2]), (2, [0, 1])], [0], nil, #line),
            // Nested, every part acknowledged: the smaller limit.
            ([(4, [0, 1, 2]), (2, [0, 1])], [0, 1, 2], 2, #line),
            // Two refusals, only the second proven (the first's registers include a rejected one).
            ([(4, [0, 1, 2]), (2, [3, 4])], [0, 1, 3, 4], 2, #line),
            ([(2, [])], [], nil, #line),
        ]
        for (trials, acknowledged, expected, line) in table {
            var evidence = WriteLimitEvidence()
            for (limit, registers) in trials { evidence.tried(limit, for: registers) }
            XCTAssertEqual(evidence.learned(acknowledgedWhole: { acknowledged.contains($0) }), expected, line: line)
        }
    }

    /// The one classification of a write's call: register writes, steps and rollback writes all use it.
    func testWriteAnswerTable() {
        // failed, exception, unanswered frames, answer
        let table: [(Bool, Bool, Int, WriteAnswer, UInt)] = [
            (false, false, 0, .acknowledged, #line),
            (false, false, 2, .acknowledged, #line),  // a retry answered: stored
            (true, true, 0, .rejected, #line),
            (true, true, 1, .rejected, #line),  // answered with an exception after a lost frame: the answer counts
            (true, false, 1, .noAnswer, #line),  // sent, unanswered: may be stored
            (true, false, 3, .noAnswer, #line),
            (true, false, 0, .notSent, #line),  // never left: no connection
        ]
        for (failed, exception, unanswered, answer, line) in table {
            XCTAssertEqual(
                WriteAnswer.of(failed: failed, exception: exception, unansweredFrames: unanswered), answer, line: line)
        }
    }
}
