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
