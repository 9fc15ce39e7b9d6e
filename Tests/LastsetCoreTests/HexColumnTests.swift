import XCTest

@testable import LastsetCore

/// A column keeps canonical hex as words and anything else as given: its hex, its words and its
/// comparisons are those of the strings it was given.
final class HexColumnTests: XCTestCase {
    private let values: [String?] = [
        "0007", "0007", "0000000A", "0000000a", "00", "ABC", "ZZZZ", "", "FFFF", "ffff", nil, "41424344454647FF",
    ]

    func testHexWordsAndEqualityAreTheStrings() {
        var column = HexColumn(count: values.count)
        XCTAssertTrue((0..<values.count).allSatisfy { !column.isPresent($0) && column.hex($0) == nil })
        for (i, v) in values.enumerated() { column.set(i, hex: v, message: v == nil ? "timeout" : nil) }
        for (i, v) in values.enumerated() {
            XCTAssertTrue(column.isPresent(i))
            XCTAssertEqual(column.hex(i), v, "\(i)")
            XCTAssertEqual(column.hasData(i), v != nil, "\(i)")
            XCTAssertEqual(column.message(i), v == nil ? "timeout" : nil, "\(i)")
            XCTAssertEqual(
                column.withWords(i) { Array($0) }, v.flatMap { [UInt16](valueDataHex: $0) }, "words of \(v ?? "nil")")
            XCTAssertEqual(column.check(i, registerId: "r"), JournalCheck(registerId: "r", data: v, message: column.message(i)))
            for (j, w) in values.enumerated() {
                XCTAssertEqual(column.dataEquals(i, column, j), v != nil && v == w, "\(v ?? "nil") vs \(w ?? "nil")")
                XCTAssertEqual(column.dataEquals(i, hex: w), v != nil && v == w, "\(v ?? "nil") vs \(w ?? "nil")")
            }
        }
    }

    func testWordsSetInPlaceOrAppendedAndReset() {
        var column = HexColumn(count: 3)
        [UInt16]([1, 2]).withUnsafeBufferPointer { column.set(0, words: $0) }
        [UInt16]([3]).withUnsafeBufferPointer { column.set(1, words: $0) }
        [UInt16]([4, 5]).withUnsafeBufferPointer { column.set(0, words: $0) }  // same length: in place
        [UInt16]([6, 7, 8]).withUnsafeBufferPointer { column.set(1, words: $0) }  // longer: appended
        column.set(2, words: nil, message: "not read")
        XCTAssertEqual(column.hex(0), "00040005")
        XCTAssertEqual(column.hex(1), "000600070008")
        XCTAssertEqual(column.check(2, registerId: "c"), JournalCheck(registerId: "c", data: nil, message: "not read"))
        column.set(0, hex: "abcd")
        XCTAssertEqual(column.hex(0), "abcd")
        [UInt16]([0xABCD]).withUnsafeBufferPointer { column.set(0, words: $0) }
        XCTAssertEqual(column.hex(0), "ABCD")
        column.reset(count: 3)
        XCTAssertTrue((0..<3).allSatisfy { !column.isPresent($0) && column.message($0) == nil })
        column.reset(count: 1)
        XCTAssertEqual(column.count, 1)
    }
}

/// A column made whole from flat words holds what setting each register's words gives.
final class HexColumnFlatTests: XCTestCase {
    func testAColumnFromFlatWordsIsTheColumnSetRegisterByRegister() {
        let words: [UInt16] = [1, 0xABCD, 0, 2, 3, 4, 5]
        let starts = [0, 1, 3, 3]
        let counts = [1, 2, 0, 4]
        let whole = HexColumn(words: words, starts: starts, counts: counts)
        var each = HexColumn(count: starts.count)
        for i in starts.indices {
            words.withUnsafeBufferPointer { each.set(i, words: UnsafeBufferPointer(rebasing: $0[starts[i]..<(starts[i] + counts[i])])) }
        }
        XCTAssertEqual(whole.count, 4)
        for i in starts.indices {
            XCTAssertEqual(whole.hex(i), each.hex(i))
            XCTAssertEqual(whole.withWords(i) { Array($0) }, each.withWords(i) { Array($0) })
            for j in starts.indices { XCTAssertEqual(whole.dataEquals(i, each, j), each.dataEquals(i, each, j), "\(i) \(j)") }
        }
        XCTAssertEqual(whole.hex(1), "ABCD0000")
        XCTAssertEqual(whole.hex(3), "0002000300040005")
    }
}
