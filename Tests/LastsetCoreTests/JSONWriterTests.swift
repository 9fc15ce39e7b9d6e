import Foundation
import LastsetCore
import XCTest
import LastsetFormats

/// `JSONWriter` writes into a buffer of its own: what it writes must be exactly the JSON text expected, for
/// every kind of value, every escape, nesting and a buffer grown many times over.
final class JSONWriterTests: XCTestCase {
    private func text(_ build: (inout JSONWriter) -> Void, capacity: Int = 64) -> String {
        var w = JSONWriter(capacity: capacity)
        build(&w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    func testValuesAndEscapesAreWrittenExactly() {
        let cases: [(String, (inout JSONWriter) -> Void)] = [
            ("\"plain-id.1\"", { $0.string("plain-id.1") }),
            ("\"\"", { $0.string("") }),
            ("\"a\\\"b\\\\c\\nd\\re\\tf\\u0001g\\u001fh\"", { $0.string("a\"b\\c\nd\re\tf\u{01}g\u{1F}h") }),
            ("\"Grüße ✓\"", { $0.string("Grüße ✓") }),
            ("0", { $0.int(0) }),
            ("9", { $0.int(9) }),
            ("10", { $0.int(10) }),
            ("-1", { $0.int(-1) }),
            ("-9223372036854775808", { $0.int(Int64.min) }),
            ("18446744073709551615", { $0.int(UInt64.max) }),
            ("1.5", { $0.double(1.5) }),
            ("\"nan\"", { $0.double(.nan) }),
            ("true", { $0.bool(true) }),
            ("null", { $0.null() }),
            ("[1,2]", { $0.raw(Array("[1,2]".utf8)) }),
            ("{\"hex\":\"0A0B\"}", { $0.value(.bytes([0x0A, 0x0B])) }),
            (
                "{\"a\":1,\"b\":[1,\"x\",{}],\"c\":{\"d\":false},\"e\":[]}",
                {
                    $0.beginObject()
                    $0.field("a", 1)
                    $0.key("b")
                    $0.beginArray()
                    $0.int(1)
                    $0.string("x")
                    $0.beginObject()
                    $0.endObject()
                    $0.endArray()
                    $0.key("c")
                    $0.beginObject()
                    $0.field("d", false)
                    $0.endObject()
                    $0.key("e")
                    $0.beginArray()
                    $0.endArray()
                    $0.endObject()
                }
            ),
            (
                "[\n1,\n2\n]",
                {
                    $0.beginArray()
                    $0.lineBreak()
                    $0.int(1)
                    $0.lineBreak()
                    $0.int(2)
                    $0.lineBreak()
                    $0.endArray()
                }
            ),
            ("{\"k y\":\"v\"}", { $0.beginObject(); $0.field(dynamic: "k y", "v"); $0.endObject() }),
        ]
        for (expected, build) in cases {
            XCTAssertEqual(text(build), expected)
        }
        var w = JSONWriter(capacity: 64)
        w.string("x")
        XCTAssertEqual(String(decoding: w.line(), as: UTF8.self), "\"x\"\n")
    }

    /// Far past its first capacity (grown by doubling, many times): the same text as written piece by piece,
    /// and valid JSON that Foundation reads back.
    func testAGrownBufferHoldsEverythingWritten() throws {
        let ids = (0..<5_000).map { "register-\($0)" }
        let out = text({ w in
            w.beginArray()
            for (i, id) in ids.enumerated() {
                w.beginObject()
                w.field("i", i)
                w.field("id", id)
                w.endObject()
            }
            w.endArray()
        }, capacity: 1)
        let expected = "[" + ids.enumerated().map { "{\"i\":\($0.offset),\"id\":\"\($0.element)\"}" }.joined(separator: ",") + "]"
        XCTAssertEqual(out, expected)
        let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
        XCTAssertEqual(parsed.count, 5_000)
        XCTAssertEqual(parsed.last?["id"] as? String, "register-4999")
    }
}
