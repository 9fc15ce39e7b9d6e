import Foundation
import XCTest

@testable import LastsetCore
import LastsetFormats

final class ExactNumberTests: XCTestCase {
    private let twoTo53 = ExactNumber(Int64(1) << 53)

    func testOrderIsExactAcrossIntegersAndReals() {
        let big = ExactNumber(UInt64.max)
        let table: [(ExactNumber, ExactNumber, Bool, UInt)] = [
            (ExactNumber(Int64(9_007_199_254_740_995)), ExactNumber(Int64(9_007_199_254_740_996)), true, #line),
            (ExactNumber(Int64(9_007_199_254_740_996)), ExactNumber(Int64(9_007_199_254_740_995)), false, #line),
            (ExactNumber(UInt64.max - 1), big, true, #line),
            (ExactNumber(Int64.min), ExactNumber(UInt64.max), true, #line),
            (2, 2.5, true, #line),
            (2.5, 3, true, #line),
            (3, 2.5, false, #line),
            (-3, -2.5, true, #line),
            (-2.5, -2, true, #line),
            (-2, -2.5, false, #line),
            (2.25, 2.5, true, #line),
            (ExactNumber(1e300), big, false, #line),
            (big, ExactNumber(1e300), true, #line),
            (ExactNumber(-1e300), ExactNumber(Int64.min), true, #line),
            (ExactNumber(Double.infinity), big, false, #line),
            (big, ExactNumber(Double.infinity), true, #line),
            (ExactNumber(-Double.infinity), ExactNumber(Int64.min), true, #line),
            (ExactNumber(Double.nan), 1, false, #line),
            (1, ExactNumber(Double.nan), false, #line),
            (ExactNumber(-0.0), 0, false, #line),
            (0, ExactNumber(-0.0), false, #line),
        ]
        for (a, b, less, line) in table {
            XCTAssertEqual(a < b, less, "\(a) < \(b)", line: line)
        }
    }

    func testAWholeRealIsTheIntegerItIs() {
        XCTAssertEqual(ExactNumber(900.0), 900)
        XCTAssertEqual(ExactNumber(900.0).hashValue, ExactNumber(Int64(900)).hashValue)
        XCTAssertEqual(ExactNumber(-0.0), 0)
        XCTAssertNotEqual(ExactNumber(2.5), 2)
        XCTAssertEqual(ExactNumber(RegisterValue.unsigned(.max))?.description, "18446744073709551615")
        XCTAssertEqual(ExactNumber(RegisterValue.float(2.5))?.description, "2.5")
        XCTAssertNil(ExactNumber(RegisterValue.text("x")))
    }

    func testConfigNumbersAreKeptExactly() throws {
        let config = try JSONValue.parse(json: Array(#"{"a": 9007199254740995, "b": 18446744073709551615, "c": -9223372036854775808, "d": 0.25, "e": 900.0}"#.utf8))
        guard case .object(let f) = config else { return XCTFail("not an object") }
        XCTAssertEqual(f["a"].flatMap(ExactNumber.init)?.description, "9007199254740995")
        XCTAssertEqual(f["b"].flatMap(ExactNumber.init)?.description, "18446744073709551615")
        XCTAssertEqual(f["c"].flatMap(ExactNumber.init)?.description, "-9223372036854775808")
        XCTAssertEqual(f["d"].flatMap(ExactNumber.init)?.description, "0.25")
        XCTAssertEqual(f["e"].flatMap(ExactNumber.init), 900)
    }

    func testCodableKeepsEveryDigit() throws {
        let values: [ExactNumber] = [900, -200, 0.25, ExactNumber(UInt64.max), ExactNumber(Int64.min), 9_007_199_254_740_995]
        let data = try JSONEncoder().encode(values)
        XCTAssertEqual(
            String(decoding: data, as: UTF8.self),
            "[900,-200,0.25,18446744073709551615,-9223372036854775808,9007199254740995]")
        XCTAssertEqual(try JSONDecoder().decode([ExactNumber].self, from: data), values)
        XCTAssertEqual(try JSONDecoder().decode([ExactNumber].self, from: Data("[900.0, 1e3]".utf8)), [900, 1000])
    }

    /// The page hash spells a bound as it always has where a Double holds it (`900.0`), so existing page
    /// hashes stand; a bound no Double holds is spelled in full, never as the Double next to it.
    func testThePageHashSpellingOfABound() {
        let table: [(ExactNumber, String, UInt)] = [
            (900, "900.0", #line), (-200, "-200.0", #line), (0.25, "0.25", #line),
            (twoTo53, "9007199254740992.0", #line),
            (9_007_199_254_740_995, "9007199254740995", #line),
            (ExactNumber(UInt64.max), "18446744073709551615", #line),
            (ExactNumber(UInt64(1) << 60), "1.152921504606847e+18", #line),
            (ExactNumber(UInt64.max - 1), "18446744073709551614", #line),
        ]
        for (n, spelled, line) in table {
            var w = JSONWriter()
            w.number(n)
            XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), spelled, line: line)
        }
    }
}
