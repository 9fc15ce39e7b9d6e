import Foundation
import XCTest

@testable import LastsetCore

final class JSON5SyntaxLocatorTests: XCTestCase {
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
            XCTAssertNoThrow(try JSONValue.parse(json5: Data(text.utf8)), text)
            XCTAssertNil(JSON5SyntaxLocator.locate(text), text)
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
            XCTAssertThrowsError(try JSONValue.parse(json5: Data(text.utf8)), line: l)
            let failure = JSON5SyntaxLocator.locate(text)
            XCTAssertEqual(failure?.line, line, text, line: l)
            XCTAssertEqual(failure?.column, column, text, line: l)
            XCTAssertTrue(failure?.message.contains(fragment) ?? false, "\(String(describing: failure))", line: l)
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
}
