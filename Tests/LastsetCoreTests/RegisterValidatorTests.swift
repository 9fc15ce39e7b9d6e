import Foundation
import XCTest

@testable import LastsetCore

final class RegisterValidatorTests: XCTestCase {
    private func def(
        _ type: RegisterType, min: ExactNumber? = nil, max: ExactNumber? = nil, enum values: [ExactNumber]? = nil,
        unset: RegisterValue? = nil
    ) -> RegisterDefinition {
        RegisterDefinition(registerId: "heating.x", address: 101, type: type, unset: unset, min: min, max: max, enum: values)
    }

    func testRules() {
        let table: [(RegisterDefinition, [UInt16], [RegisterProblem.Rule], UInt)] = [
            (def(.s16, min: -200, max: 900), [0x0384], [], #line),
            (def(.s16, min: -200, max: 900), [0x03B6], [.aboveMax(900)], #line),
            (def(.s16, min: -200, max: 900), [0xFF37], [.belowMin(-200)], #line),
            (def(.u16, enum: [0, 1, 2]), [2], [], #line),
            (def(.u16, enum: [0, 1, 2]), [3], [.notInEnum([0, 1, 2])], #line),
            (def(.u16, max: 2, enum: [0, 1, 2]), [5], [.aboveMax(2), .notInEnum([0, 1, 2])], #line),
            (def(.f32), [0x7FC0, 0x0000], [.notFinite], #line),
            (def(.f32, min: 0), [0xFF80, 0x0000], [.notFinite], #line),
            (def(.f64), [0x7FF0, 0, 0, 0], [.notFinite], #line),
            (def(.f32, max: 1), [0x3FC0, 0x0000], [.aboveMax(1)], #line),
            (def(.string(4)), [0x4142, 0x0000], [], #line),
            (def(.string(4)), [0xC328, 0x0000], [.invalidUTF8], #line),
            (def(.string(4)), [0x41FE, 0x0000], [.invalidUTF8], #line),
            (def(.string(4)), [0x4100, 0xFFFE], [], #line),  // bytes after the NUL do not count
            (def(.raw(2)), [0xFFFE], [], #line),
            (def(.u32), [1], [.length(expected: 2, actual: 1)], #line),
            (def(.u16), [1, 2], [.length(expected: 1, actual: 2)], #line),
            // Unset values are skipped, not invalid.
            (def(.u16, max: 900), [0xFFFF], [], #line),
            (def(.string(4)), [0xFFFF, 0xFFFF], [], #line),
            (def(.u16, max: 900, unset: .unsigned(0)), [0xFFFF], [.aboveMax(900)], #line),
            // 64-bit values against the bound as declared, not its nearest Double (2^53 + 3 is 2^53 + 4 as a
            // Double, so 2^53 + 4 used to pass `max: 2^53 + 3`, and 2^53 used to be in `enum: [2^53 + 1]`).
            (def(.u64, max: 9_007_199_254_740_995), [0x0020, 0, 0, 4], [.aboveMax(9_007_199_254_740_995)], #line),
            (def(.u64, max: 9_007_199_254_740_995), [0x0020, 0, 0, 3], [], #line),
            (def(.s64, min: -9_007_199_254_740_995), [0xFFDF, 0xFFFF, 0xFFFF, 0xFFFC], [.belowMin(-9_007_199_254_740_995)], #line),
            (def(.s64, min: -9_007_199_254_740_995), [0xFFDF, 0xFFFF, 0xFFFF, 0xFFFD], [], #line),
            (def(.u64, enum: [9_007_199_254_740_993]), [0x0020, 0, 0, 0], [.notInEnum([9_007_199_254_740_993])], #line),
            (def(.u64, enum: [9_007_199_254_740_993]), [0x0020, 0, 0, 1], [], #line),
            (
                def(.u64, max: ExactNumber(UInt64.max - 1), unset: .unsigned(0)), [0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF],
                [.aboveMax(ExactNumber(UInt64.max - 1))], #line
            ),
            // Floats against integer bounds, exactly.
            (def(.f32, max: 2), [0x4020, 0x0000], [.aboveMax(2)], #line),  // 2.5
            (def(.f32, min: 3), [0x4020, 0x0000], [.belowMin(3)], #line),
            (def(.f32, enum: [2, 3]), [0x4020, 0x0000], [.notInEnum([2, 3])], #line),
            (def(.f32, enum: [2.5]), [0x4020, 0x0000], [], #line),
            (def(.f32, enum: [2]), [0x4000, 0x0000], [], #line),
        ]
        for (d, words, rules, line) in table {
            XCTAssertEqual(RegisterValidator.problems(words: words, definition: d).map(\.rule), rules, line: line)
        }
    }

    func testProblemCarriesRegisterAddressRawAndValue() {
        let problems = RegisterValidator.problems(words: [0x03B6], definition: def(.s16, min: -200, max: 900))
        XCTAssertEqual(
            problems, [RegisterProblem(registerId: "heating.x", address: 101, rawHex: "03B6", value: "950", rule: .aboveMax(900))]
        )
        XCTAssertEqual(problems[0].description, "heating.x @101: 950 (0x03B6) above max 900")
    }

    func testStringAndUnsetViewsOfWords() throws {
        let d = RegisterDefinition(registerId: "label", name: "Label", address: 110, type: .string(6), byteOrder: .little)
        XCTAssertEqual(RegisterCodec.decode([0x6F5A, 0x656E, 0x0031], as: d), .text("Zone1"))
        XCTAssertEqual(d.length, 3)
        XCTAssertFalse(RegisterCodec.isUnset([0x6F5A, 0x656E, 0x0031], for: d))
        XCTAssertEqual(RegisterValidator.problems(words: [0x6F5A, 0x656E, 0x0031], definition: d), [])
        XCTAssertEqual(RegisterValidator.problems(words: [0x41C3, 0, 0], definition: d).map(\.rule), [.invalidUTF8])
        XCTAssertTrue(RegisterCodec.isUnset([0xFFFF], for: RegisterDefinition(registerId: "n", address: 1, type: .u16)))
    }
}
