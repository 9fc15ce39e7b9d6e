import XCTest

@testable import LastsetCore

/// A template entry carries its words decoded once: made, decoded and edited, they are always what
/// parsing its `valueData` gives, and they are not part of its archived form.
final class TemplateEntryTests: XCTestCase {
    private let table: [(hex: String, words: [UInt16]?, line: UInt)] = [
        ("0007", [7], #line),
        ("0000000A", [0, 10], #line),
        ("0000000a", [0, 10], #line),  // lower case parses to the same words
        ("FFFF", [0xFFFF], #line),
        ("", [], #line),
        ("00", [0], #line),  // an odd trailing byte padded with 0, as `[UInt16](valueDataHex:)`
        ("ABC", nil, #line),  // odd length
        ("ZZ00", nil, #line),  // not hex
    ]

    private func entry(_ hex: String) -> TemplateEntry {
        TemplateEntry(
            registerId: "r", address: 1, length: 1, valueData: hex, value: .unsigned(0),
            lastDate: Date(timeIntervalSince1970: 0))
    }

    func testWordsAreTheHexParsedOnceWhenMadeDecodedOrEdited() throws {
        for c in table {
            XCTAssertEqual([UInt16](valueDataHex: c.hex), c.words, "the table agrees with the parser", line: c.line)
            let made = entry(c.hex)
            XCTAssertEqual(made.hexWords, c.words, line: c.line)
            XCTAssertEqual(made.words, c.words ?? [], "words: empty when not hex, as before", line: c.line)

            let json = try APICoding.encoder().encode(made)
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [String: Any])
            XCTAssertEqual(
                Set(object.keys), ["registerId", "address", "length", "valueData", "value", "lastDate"],
                "the decoded words are not archived", line: c.line)
            let decoded = try APICoding.decoder().decode(TemplateEntry.self, from: json)
            XCTAssertEqual(decoded, made, line: c.line)
            XCTAssertEqual(decoded.hexWords, c.words, line: c.line)

            var edited = entry("1234")
            edited.valueData = c.hex
            XCTAssertEqual(edited.hexWords, c.words, line: c.line)
            XCTAssertEqual(edited, made, line: c.line)
        }
    }

    /// An identity register matches as words: the hex's case never decides, anything that is not the
    /// target's words exactly (other words, fewer or more, not hex) does not match.
    func testAnIdentityIsComparedAsWords() {
        let target: [UInt16] = [0x5052, 0x532D, 0x3230, 0x3000]  // "PRS-200"
        let table: [(String, Bool, UInt)] = [
            ("5052532D32303000", true, #line),
            ("5052532d32303000", true, #line),
            ("5052532d32303000".uppercased(), true, #line),
            ("5052532D32303100", false, #line),
            ("5052532D323030", false, #line),
            ("5052532D3230300000", false, #line),
            ("5052532D32303000FF", false, #line),
            ("5052532G32303000", false, #line),
            ("", false, #line),
        ]
        for (hex, matches, line) in table {
            let recorded = RecordedValue(registerId: "model", address: 0, valueData: hex, value: .text("PRS-200"))
            XCTAssertEqual(recorded.isHeld(by: target), matches, hex, line: line)
        }
    }
}
