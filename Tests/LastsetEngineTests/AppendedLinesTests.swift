import Foundation
import LastsetEngine
import TestSupport
import XCTest

/// The fleet's audit export reads its cursor, the file's last line, from the end: whatever the chunk size and line
/// lengths, a torn last line cut off, and appends in place.
final class AppendedLinesTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory(prefix: "appended-lines")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    func testTheLastLineFromATable() throws {
        let long = String(repeating: "x", count: 300)
        let cases: [(content: String?, last: String?, after: String?, line: UInt)] = [
            (nil, nil, nil, #line),
            ("", nil, "", #line),
            ("a\n", "a", "a\n", #line),
            ("a\nbb\n", "bb", "a\nbb\n", #line),
            ("a\n\(long)\n", long, "a\n\(long)\n", #line),
            ("\(long)\nb\n", "b", "\(long)\nb\n", #line),
            // A torn last line (an append cut short) is cut off: the line before is the cursor.
            ("a\nbb\ncc", "bb", "a\nbb\n", #line),
            ("a\nbb\n\(long)", "bb", "a\nbb\n", #line),
            ("torn", nil, "", #line),
            ("\n", "", "\n", #line),
        ]
        for chunk in [1, 7, 64, 1 << 16] {
            for (i, c) in cases.enumerated() {
                let path = dir.appendingPathComponent("f\(chunk)-\(i).jsonl").path
                if let content = c.content { try Data(content.utf8).write(to: URL(fileURLWithPath: path)) }
                let lines = AppendedLines(path: path, chunk: chunk)
                XCTAssertEqual(try lines.lastLine().map { String(decoding: $0, as: UTF8.self) }, c.last, "chunk \(chunk)", line: c.line)
                let after = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
                XCTAssertEqual(after, c.after, "chunk \(chunk)", line: c.line)
            }
        }
    }

    func testAppendsInPlaceAndCreatesTheFile() throws {
        let path = dir.appendingPathComponent("audit.jsonl").path
        let lines = AppendedLines(path: path, chunk: 3)
        try lines.append(Array("one\n".utf8))
        try lines.append(Array("two\nthree\n".utf8))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "one\ntwo\nthree\n")
        XCTAssertEqual(try lines.lastLine().map { String(decoding: $0, as: UTF8.self) }, "three")
    }

    func testALinkIsNeverFollowed() throws {
        let target = dir.appendingPathComponent("elsewhere")
        try Data("secret\n".utf8).write(to: target)
        let link = dir.appendingPathComponent("audit.jsonl")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        XCTAssertThrowsError(try AppendedLines(path: link.path).lastLine())
        XCTAssertThrowsError(try AppendedLines(path: link.path).append(Array("x\n".utf8)))
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "secret\n")
    }
}
