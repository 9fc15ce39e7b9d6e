import Foundation
import LastsetFormats
import XCTest

@testable import LastsetCore

/// The strict parser accepts what Foundation's JSON5 decoder accepts (the same values), says where
/// text stops being valid, and refuses what Foundation hides (repeated keys) or traps on (invalid UTF-8).
final class StrictJSONParserTests: XCTestCase {
    func testAcceptsWhatFoundationAccepts() throws {
        let valid = [
            ConfigLoaderTests.designConfig,
            "{}", "[]", "  1 ", "'single'", #""esc \" \\ \n \u00e9""#, "[1, 2,]", "{a: 1,}",
            "{$a_1: null, 'b': true, \"c\": false}",
            "[0x1F, -0x10, +5, .5, 5., 1e3, -2.5E-3, Infinity, -Infinity, NaN]",
            "/* block */ { // line\n a: /* inner */ 1 }\n// trailing", "\u{FEFF}{ a: 1 }",
            "{ a: 'it''s' }".replacingOccurrences(of: "''", with: "\\'"),
            "{ é: 1, _x: [ [ [] ] ] }",
        ]
        for text in valid {
            let decoder = JSONDecoder()
            decoder.allowsJSON5 = true
            let foundation = try decoder.decode(JSONValue.self, from: Data(text.utf8))
            XCTAssertEqual(try JSONValue.parse(json5: Data(text.utf8)).description, foundation.description, text)
        }
    }

    func testLocatesErrors() {
        let table: [(String, Int, Int, String, UInt)] = [
            ("{ version: 1,\n devices: [ }", 2, 13, "expected a value, found '}'", #line),
            ("{\n  a: 1\n  b: 2\n}", 3, 3, "expected ',' or '}', found 'b'", #line),
            ("{ a: \"x }", 1, 6, "unclosed string", #line),
            ("[1, 2", 1, 6, "unclosed array", #line),
            ("{ a 1 }", 1, 5, "expected ':' after the key", #line),
            ("{ a: tru }", 1, 6, "expected a value, found 't'", #line),
            ("{ a: 1 } x", 1, 10, "unexpected text after the end", #line),
            ("{ a: 0x }", 1, 8, "expected hex digits", #line),
            ("{ a: 12abc }", 1, 8, "unexpected 'a' in a number", #line),
            ("/* open\n{ }", 1, 1, "unclosed /* comment", #line),
            ("{ a: 'one\ntwo' }", 1, 10, "line break inside a string", #line),
            ("", 1, 1, "expected a value, found end of input", #line),
            ("{ 1: 2 }", 1, 3, "expected a key or '}'", #line),
            ("{\r\n a: ,\r\n}", 2, 5, "expected a value, found ','", #line),
        ]
        for (text, line, column, fragment, l) in table {
            do {
                _ = try JSONValue.parse(json5: Data(text.utf8))
                XCTFail("accepted \(text)", line: l)
            } catch {
                XCTAssertEqual(error.line, line, text, line: l)
                XCTAssertEqual(error.column, column, text, line: l)
                XCTAssertTrue(error.message.contains(fragment), "\(error)", line: l)
            }
        }
    }

    func testConfigSyntaxErrorNamesTheLine() {
        let text = "// config\n{\n  version: 1,\n  devices: [],\n  pages: [ { id: \"p\" registers: [] } ],\n}\n"
        XCTAssertThrowsError(try ConfigLoader.check(Data(text.utf8), file: "/etc/lastset/lastset.json")) { error in
            XCTAssertEqual(
                "\(error)",
                "/etc/lastset/lastset.json: $: not valid JSON5: line 5, column 22: expected ',' or '}', found 'r'")
        }
    }

    func testInvalidUTF8IsAnErrorWithItsPositionNeverATrap() {
        let table: [([UInt8], Int, Int, String, UInt)] = [
            (Array("{version: 1, ".utf8) + [0xF8] + Array("history: 20}".utf8), 1, 14, "byte 0xF8 at offset 13", #line),
            (Array("{\n  a: '".utf8) + [0xC3], 2, 7, "byte 0xC3", #line),
            ([0xC0, 0x80], 1, 1, "byte 0xC0", #line),
            (Array("[\"é\", ".utf8) + [0xED, 0xA0, 0x80] + Array("]".utf8), 1, 7, "byte 0xED", #line),
            ([0xFF, 0xFE, 0x7B, 0x7D], 1, 1, "byte 0xFF", #line),
        ]
        for (bytes, line, column, fragment, l) in table {
            for syntax in [StrictJSONParser.Syntax.json, .json5] {
                do {
                    _ = try StrictJSONParser.parse(bytes, syntax: syntax)
                    XCTFail("accepted \(bytes)", line: l)
                } catch {
                    XCTAssertEqual(error.line, line, "\(bytes)", line: l)
                    XCTAssertEqual(error.column, column, "\(bytes)", line: l)
                    XCTAssertTrue(error.message.contains("not valid UTF-8"), error.message, line: l)
                    XCTAssertTrue(error.message.contains(fragment), error.message, line: l)
                }
            }
        }
    }

    func testRepeatedKeysAreReportedWithBothPositionsAndThePath() throws {
        let text = "{ a: 1,\n  b: { c: 2, 'c': 3, \"c\": 4 },\n  a: 5 }"
        let document = try StrictJSONParser.parseDocument(Array(text.utf8), syntax: .json5)
        XCTAssertEqual(
            document.duplicates.map(\.description),
            [
                "line 2, column 14: duplicate key \"c\" (first at line 2, column 8)",
                "line 2, column 22: duplicate key \"c\" (first at line 2, column 8)",
                "line 3, column 3: duplicate key \"a\" (first at line 1, column 3)",
            ])
        XCTAssertEqual(document.duplicates.map(\.path), ["b.c", "b.c", "a"])
        XCTAssertEqual(document.value, .object(["a": .int(1), "b": .object(["c": .int(2)])]))
        XCTAssertThrowsError(try StrictJSONParser.parse(Array(#"{"dryRun": false, "dryRun": true}"#.utf8), syntax: .json))
        // Keys compare as Swift strings: a precomposed and a decomposed "é" are one key.
        XCTAssertThrowsError(try StrictJSONParser.parse(Array("{\"\u{E9}\": 1, \"e\u{301}\": 2}".utf8), syntax: .json))
    }

    func testBoundsAndStrictJSON() {
        XCTAssertThrowsError(try StrictJSONParser.parse(Array(String(repeating: "[", count: 65).utf8), syntax: .json)) {
            XCTAssertTrue("\($0)".contains("nested deeper than 64"), "\($0)")
        }
        XCTAssertNoThrow(
            try StrictJSONParser.parse(
                Array((String(repeating: "[", count: 64) + String(repeating: "]", count: 64)).utf8), syntax: .json))
        XCTAssertThrowsError(
            try StrictJSONParser.parse(Array("[1, 2]".utf8), syntax: .json, limits: .init(maxDepth: 4, maxBytes: 5)))
        // What JSON5 allows and JSON does not.
        for text in [
            "{a: 1}", "[1,]", "{\"a\": 1,}", "'x'", "0x10", "+1", ".5", "5.", "NaN", "Infinity", "// c\n1", "01", "\"\t\"",
            "\"\\x41\"",
        ] {
            XCTAssertThrowsError(try StrictJSONParser.parse(Array(text.utf8), syntax: .json), text)
        }
        for (text, value) in [
            (
                "[1, -2, 9223372036854775808, 1.5e3, \"\\u00e9\\ud83d\\ude00\"]",
                JSONValue.array([.int(1), .int(-2), .uint(9_223_372_036_854_775_808), .double(1500), .string("é😀")])
            ),
            ("{\"a\": [true, false, null]}", .object(["a": .array([.bool(true), .bool(false), .null])])),
        ] {
            XCTAssertEqual(try StrictJSONParser.parse(Array(text.utf8), syntax: .json), value, text)
        }
        XCTAssertThrowsError(try StrictJSONParser.parse(Array("0x1FFFFFFFFFFFFFFFF".utf8), syntax: .json5))
        XCTAssertThrowsError(try StrictJSONParser.parse(Array("\"\\ud83d\"".utf8), syntax: .json), "lone surrogate")
    }

    func testRequestBodiesAreStrict() {
        let shape = ApplyRequest.bodyShape
        let table: [(String, String?)] = [
            (#"{"device":"b","dryRun":true}"#, nil),
            (#"{"device":"b","dryRun":false,"onError":"stop","version":2}"#, nil),
            (#"{"device":"b","dryRun":null}"#, "null_value"),
            (#"{"device":null}"#, "null_value"),
            (#"{"device":"b","dryRun":false,"dryRun":true}"#, "duplicate_key"),
            (#"{"device":"b","dryRun":"false"}"#, "bad_json"),
            (#"{"device":"b","dryRun":0}"#, "bad_json"),
            (#"{"device":"b","dryrun":true}"#, "unknown_key"),
            (#"["device"]"#, "bad_json"),
            ("", "bad_json"),
            (#"{"device":"b",}"#, "bad_json"),
        ]
        for (body, code) in table {
            do {
                _ = try RequestBody.fields(Array(body.utf8), shape: shape)
                XCTAssertNil(code, body)
            } catch {
                XCTAssertEqual(error.code.rawValue, code, "\(body): \(error)")
            }
        }
    }
}
