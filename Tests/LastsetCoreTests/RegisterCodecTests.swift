import Foundation
import TestSupport
import XCTest

@testable import LastsetCore

final class RegisterCodecTests: XCTestCase {
    private func def(
        _ type: RegisterType, word: WordOrder? = nil, byte: ByteOrder? = nil, unset: RegisterValue? = nil
    ) -> RegisterDefinition {
        RegisterDefinition(registerId: "r", address: 10, type: type, wordOrder: word, byteOrder: byte, unset: unset)
    }

    private struct Case {
        var type: RegisterType
        var word: WordOrder? = nil
        var byte: ByteOrder? = nil
        var words: [UInt16]
        var value: RegisterValue
        var line: UInt = #line
    }

    /// Canonical words and their values: decode gives the value, encode gives back the same words.
    private let table: [Case] = [
        Case(type: .u16, words: [0x1234], value: .unsigned(0x1234)),
        Case(type: .u16, byte: .little, words: [0x3412], value: .unsigned(0x1234)),
        Case(type: .u16, word: .little, words: [0x1234], value: .unsigned(0x1234)),
        Case(type: .u16, words: [0xFFFE], value: .unsigned(65534)),
        Case(type: .s16, words: [0xFF38], value: .signed(-200)),
        Case(type: .s16, byte: .little, words: [0x38FF], value: .signed(-200)),
        Case(type: .s16, words: [0x8000], value: .signed(-32768)),
        Case(type: .s16, words: [0x0384], value: .signed(900)),
        Case(type: .u32, words: [0x0001, 0x0002], value: .unsigned(0x0001_0002)),
        Case(type: .u32, word: .little, words: [0x0002, 0x0001], value: .unsigned(0x0001_0002)),
        Case(type: .u32, byte: .little, words: [0x0100, 0x0200], value: .unsigned(0x0001_0002)),
        Case(type: .u32, word: .little, byte: .little, words: [0x0200, 0x0100], value: .unsigned(0x0001_0002)),
        Case(type: .u32, word: .big, byte: .big, words: [0xDEAD, 0xBEEF], value: .unsigned(0xDEAD_BEEF)),
        Case(type: .s32, words: [0xFFFF, 0xFFFE], value: .signed(-2)),
        Case(type: .s32, word: .little, words: [0xFFFE, 0xFFFF], value: .signed(-2)),
        Case(type: .s32, words: [0x8000, 0x0000], value: .signed(Int64(Int32.min))),
        Case(type: .s32, byte: .little, words: [0x0100, 0x0000], value: .signed(0x0001_0000)),
        Case(type: .u64, words: [0x0102, 0x0304, 0x0506, 0x0708], value: .unsigned(0x0102_0304_0506_0708)),
        Case(type: .u64, word: .little, words: [0x0708, 0x0506, 0x0304, 0x0102], value: .unsigned(0x0102_0304_0506_0708)),
        Case(type: .u64, byte: .little, words: [0x0201, 0x0403, 0x0605, 0x0807], value: .unsigned(0x0102_0304_0506_0708)),
        Case(
            type: .u64, word: .little, byte: .little, words: [0x0807, 0x0605, 0x0403, 0x0201],
            value: .unsigned(0x0102_0304_0506_0708)),
        Case(type: .s64, words: [0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF], value: .signed(-1)),
        Case(type: .s64, word: .little, words: [0x0000, 0x0000, 0x0000, 0x8000], value: .signed(Int64.min)),
        Case(type: .f32, words: [0x3FC0, 0x0000], value: .float(1.5)),
        Case(type: .f32, word: .little, words: [0x0000, 0x3FC0], value: .float(1.5)),
        Case(type: .f32, byte: .little, words: [0xC03F, 0x0000], value: .float(1.5)),
        Case(type: .f32, word: .little, byte: .little, words: [0x0000, 0xC03F], value: .float(1.5)),
        Case(type: .f32, words: [0xC2C8, 0x0000], value: .float(-100)),
        Case(type: .f64, words: [0xC004, 0x0000, 0x0000, 0x0000], value: .float(-2.5)),
        Case(type: .f64, word: .little, words: [0x0000, 0x0000, 0x0000, 0xC004], value: .float(-2.5)),
        Case(type: .f64, byte: .little, words: [0x04C0, 0x0000, 0x0000, 0x0000], value: .float(-2.5)),
        Case(type: .string(8), words: [0x4142, 0x4300, 0x0000, 0x0000], value: .text("ABC")),
        Case(type: .string(8), byte: .little, words: [0x4241, 0x0043, 0x0000, 0x0000], value: .text("ABC")),
        // Word order does not apply to text: characters stay in address order.
        Case(type: .string(8), word: .little, words: [0x4142, 0x4300, 0x0000, 0x0000], value: .text("ABC")),
        Case(type: .string(5), words: [0x4865, 0x6C6C, 0x6F00], value: .text("Hello")),
        Case(type: .string(4), words: [0xC3A9, 0x0000], value: .text("é")),
        Case(type: .string(2), words: [0x0000], value: .text("")),
        Case(type: .raw(3), words: [0x0102, 0x0300], value: .bytes([1, 2, 3])),
        Case(type: .raw(4), byte: .little, words: [0x0201, 0x0403], value: .bytes([1, 2, 3, 4])),
        Case(type: .raw(4), word: .little, words: [0x0102, 0x0304], value: .bytes([1, 2, 3, 4])),
    ]

    func testDecodeTable() {
        for c in table {
            XCTAssertEqual(
                RegisterCodec.decode(c.words, as: def(c.type, word: c.word, byte: c.byte)), c.value,
                "\(c.type) \(c.words)", line: c.line)
        }
    }

    func testEncodeTable() throws {
        for c in table {
            XCTAssertEqual(
                try RegisterCodec.encode(c.value, as: def(c.type, word: c.word, byte: c.byte)), c.words,
                "\(c.type) \(c.value)", line: c.line)
        }
    }

    func testRoundTripBothWaysOnRandomWords() throws {
        var rng = SplitMix(seed: 42)
        let types: [RegisterType] = [.u16, .s16, .u32, .s32, .u64, .s64, .f32, .f64, .raw(6), .raw(5)]
        var checked = 0
        for type in types {
            for word in [WordOrder.big, .little] {
                for byte in [ByteOrder.big, .little] {
                    let d = def(type, word: word, byte: byte)
                    for _ in 0..<200 {
                        var words = (0..<type.registerCount).map { _ in UInt16(truncatingIfNeeded: rng.next()) }
                        // raw(5): the pad byte of the last register is not part of the value.
                        if type == .raw(5) { words[2] &= byte == .big ? 0xFF00 : 0x00FF }
                        let value = RegisterCodec.decode(words, as: d)
                        if case .float(let f) = value, !f.isFinite { continue }  // NaN/inf are not encodable
                        let back = try RegisterCodec.encode(value, as: d)
                        XCTAssertEqual(back, words, "\(type) \(word) \(byte) \(value)")
                        XCTAssertEqual(RegisterCodec.decode(back, as: d), value)
                        checked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 7000)
    }

    func testRoundTripValues() throws {
        let values: [(RegisterType, RegisterValue)] = [
            (.u16, .unsigned(0)), (.u16, .unsigned(65535)), (.s16, .signed(-32768)), (.s16, .signed(32767)),
            (.u32, .unsigned(4_294_967_295)), (.s32, .signed(-2_147_483_648)), (.u64, .unsigned(.max)),
            (.s64, .signed(.min)), (.f32, .float(0.25)), (.f64, .float(.pi)), (.f64, .float(-1e300)),
            (.string(16), .text("Zone A / °C")), (.string(1), .text("x")), (.raw(1), .bytes([0xAB])),
        ]
        for (type, value) in values {
            for word in [WordOrder.big, .little] {
                for byte in [ByteOrder.big, .little] {
                    let d = def(type, word: word, byte: byte)
                    let words = try RegisterCodec.encode(value, as: d)
                    XCTAssertEqual(words.count, type.registerCount)
                    XCTAssertEqual(RegisterCodec.decode(words, as: d), value, "\(type) \(word) \(byte)")
                }
            }
        }
    }

    func testEncodeAcceptsEquivalentNumbers() throws {
        XCTAssertEqual(try RegisterCodec.encode(.signed(7), as: def(.u16)), [7])
        XCTAssertEqual(try RegisterCodec.encode(.float(7), as: def(.u16)), [7])
        XCTAssertEqual(try RegisterCodec.encode(.unsigned(7), as: def(.s16)), [7])
        XCTAssertEqual(try RegisterCodec.encode(.float(-7), as: def(.s32)), [0xFFFF, 0xFFF9])
        XCTAssertEqual(try RegisterCodec.encode(.unsigned(2), as: def(.f32)), [0x4000, 0x0000])
        XCTAssertEqual(try RegisterCodec.encode(.signed(-2), as: def(.f64)), [0xC000, 0, 0, 0])
    }

    func testEncodeRejects() {
        let bad: [(RegisterType, RegisterValue, String)] = [
            (.u16, .unsigned(65536), "out of range 0...65535"),
            (.u16, .signed(-1), "cannot be negative"),
            (.u16, .float(1.5), "whole number"),
            (.u16, .text("1"), "needs a number"),
            (.s16, .signed(32768), "out of range -32768...32767"),
            (.s16, .signed(-32769), "out of range"),
            (.s16, .unsigned(65535), "out of range"),
            (.u32, .unsigned(4_294_967_296), "out of range 0...4294967295"),
            (.s32, .signed(2_147_483_648), "out of range"),
            (.s64, .unsigned(.max), "out of range"),
            (.u64, .float(.infinity), "whole number"),
            (.f32, .float(1e39), "too large for f32"),
            (.f32, .float(.nan), "must be finite"),
            (.f64, .float(-.infinity), "must be finite"),
            (.f64, .bytes([1]), "needs a number"),
            (.string(4), .text("Hello"), "5 UTF-8 bytes, longer than 4"),
            (.string(4), .text("é\u{0}"), "must not contain NUL"),
            (.string(4), .unsigned(1), "needs text"),
            (.raw(2), .bytes([1]), "exactly 2 bytes, got 1"),
            (.raw(2), .text("ab"), "needs bytes"),
        ]
        for (type, value, fragment) in bad {
            XCTAssertThrowsError(try RegisterCodec.encode(value, as: def(type))) { error in
                guard let e = error as? CodecError else { return XCTFail("\(error)") }
                XCTAssertEqual(e.registerId, "r")
                XCTAssertEqual(e.value, value.description)
                XCTAssertTrue(e.reason.contains(fragment), "\(type) \(value): \(e.reason)")
            }
        }
    }

    func testDefaultUnsetWords() {
        let table: [(RegisterDefinition, [UInt16])] = [
            (def(.u16), [0xFFFF]),
            (def(.s16), [0x7FFF]),
            (def(.s16, byte: .little), [0xFF7F]),
            (def(.u32), [0xFFFF, 0xFFFF]),
            (def(.s32), [0x7FFF, 0xFFFF]),
            (def(.s32, word: .little), [0xFFFF, 0x7FFF]),
            (def(.u64), [0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF]),
            (def(.s64), [0x7FFF, 0xFFFF, 0xFFFF, 0xFFFF]),
            (def(.f32), [0x7F7F, 0xFFFF]),
            (def(.f32, word: .little), [0xFFFF, 0x7F7F]),
            (def(.f64), [0x7FEF, 0xFFFF, 0xFFFF, 0xFFFF]),
            (def(.string(3)), [0xFFFF, 0xFFFF]),
            (def(.raw(4)), [0xFFFF, 0xFFFF]),
        ]
        for (d, words) in table {
            XCTAssertEqual(RegisterCodec.unsetWords(for: d), words, "\(d.type)")
            XCTAssertTrue(RegisterCodec.isUnset(words, for: d))
        }
        XCTAssertEqual(RegisterCodec.decode([0x7F7F, 0xFFFF], as: def(.f32)), .float(Double(Float.greatestFiniteMagnitude)))
        XCTAssertEqual(RegisterCodec.decode([0x7FFF], as: def(.s16)), .signed(32767))
        XCTAssertFalse(RegisterCodec.isUnset([0xFFFE], for: def(.u16)))
        XCTAssertFalse(RegisterCodec.isUnset([0xFFFF], for: def(.s16)))
    }

    func testUnsetOverrides() {
        XCTAssertEqual(RegisterCodec.unsetWords(for: def(.u16, unset: .unsigned(0))), [0])
        XCTAssertTrue(RegisterCodec.isUnset([0], for: def(.u16, unset: .unsigned(0))))
        XCTAssertFalse(RegisterCodec.isUnset([0xFFFF], for: def(.u16, unset: .unsigned(0))))
        XCTAssertEqual(RegisterCodec.unsetWords(for: def(.s16, unset: .signed(-1))), [0xFFFF])
        XCTAssertEqual(RegisterCodec.unsetWords(for: def(.u32, word: .little, unset: .unsigned(1))), [1, 0])
        XCTAssertEqual(RegisterCodec.unsetWords(for: def(.string(4), unset: .text(""))), [0, 0])
        XCTAssertEqual(RegisterCodec.unsetWords(for: def(.f32, unset: .float(-1))), [0xBF80, 0])
        // An override that does not fit falls back to the type's maximum.
        XCTAssertEqual(RegisterCodec.unsetWords(for: def(.u16, unset: .signed(-1))), [0xFFFF])
        XCTAssertEqual(RegisterCodec.defaultUnsetWords(for: def(.u16, unset: .unsigned(0))), [0xFFFF])
    }

    func testDecodeToleratesWrongLength() {
        XCTAssertEqual(RegisterCodec.decode([0x0001], as: def(.u32)), .unsigned(0x0001_0000))
        XCTAssertEqual(RegisterCodec.decode([1, 2, 3], as: def(.u16)), .unsigned(1))
    }

    func testDecodeStopsTextAtNul() {
        XCTAssertEqual(RegisterCodec.decode([0x4100, 0x4242], as: def(.string(4))), .text("A"))
        // An odd length ignores the final pad byte.
        XCTAssertEqual(RegisterCodec.decode([0x4142, 0x4344], as: def(.string(3))), .text("ABC"))
    }
}

/// The allocation-free hex and decode paths against plain reference implementations.
final class ValueHexTests: XCTestCase {
    private func referenceHex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }

    /// The decode of the first implementation: bytes in value order, folded into one integer.
    private func referenceDecode(_ words: [UInt16], _ d: RegisterDefinition) -> RegisterValue {
        let bytes = RegisterCodec.valueBytes(words, d)
        let raw = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        switch d.type {
        case .u16, .u32, .u64: return .unsigned(raw)
        case .s16, .s32, .s64:
            let shift = UInt64(64 - bytes.count * 8)
            return .signed(Int64(bitPattern: raw << shift) >> Int64(shift))
        case .f32: return .float(Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))))
        case .f64: return .float(Double(bitPattern: raw))
        default: return RegisterCodec.decode(words, as: d)
        }
    }

    func testWordsHexAndBytesAgreeWithReference() {
        var rng = SplitMix(seed: 7)
        for n in 0..<40 {
            let words = (0..<(n % 9)).map { _ in UInt16(truncatingIfNeeded: rng.next()) }
            let bytes = words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            XCTAssertEqual(words.bigEndianBytes, bytes)
            XCTAssertEqual(bytes.hexString, referenceHex(bytes))
            XCTAssertEqual(words.hexString, referenceHex(bytes))
            XCTAssertEqual([UInt8](hexString: referenceHex(bytes)), bytes)
            XCTAssertEqual([UInt8](hexString: referenceHex(bytes).lowercased()), bytes)
            XCTAssertEqual([UInt16](valueDataHex: referenceHex(bytes)), words)
            XCTAssertEqual([UInt16](valueDataHex: referenceHex(bytes).lowercased()), words)
        }
    }

    func testValueDataHexPadsAnOddByteLikeBigEndianBytes() {
        XCTAssertEqual([UInt16](valueDataHex: "123456"), [0x1234, 0x5600])
        XCTAssertEqual([UInt16](valueDataHex: "12"), [0x1200])
        XCTAssertEqual([UInt16](valueDataHex: ""), [])
        for hex in ["123456", "12", "ABCDEF01", "00ff"] {
            XCTAssertEqual([UInt16](valueDataHex: hex), [UInt16](bigEndianBytes: [UInt8](hexString: hex)!))
        }
    }

    func testInvalidHexIsRefused() {
        for bad in ["1", "123", "12G4", "xy", "12 4", "١٢", "12\u{0}4", "ÄÄ"] {
            XCTAssertNil([UInt8](hexString: bad), bad)
            XCTAssertNil([UInt16](valueDataHex: bad), bad)
        }
        // A long (not small) string takes the same path.
        let long = String(repeating: "0A", count: 300)
        XCTAssertEqual([UInt8](hexString: long)?.count, 300)
        XCTAssertNil([UInt8](hexString: long + "Z0"))
        XCTAssertEqual([UInt16](valueDataHex: long)?.count, 150)
    }

    func testNumberDecodeMatchesTheByteArrayDecode() {
        var rng = SplitMix(seed: 99)
        let types: [RegisterType] = [.u16, .s16, .u32, .s32, .u64, .s64, .f32, .f64]
        for type in types {
            for word in [WordOrder?.none, .big, .little] {
                for byte in [ByteOrder?.none, .big, .little] {
                    let d = RegisterDefinition(registerId: "r", address: 1, type: type, wordOrder: word, byteOrder: byte)
                    for n in 0..<60 {
                        // Right, short and long word counts.
                        let count = [type.registerCount, max(0, type.registerCount - 1), type.registerCount + 1][n % 3]
                        let words = (0..<count).map { _ in UInt16(truncatingIfNeeded: rng.next()) }
                        let got = RegisterCodec.decode(words, as: d)
                        let want = referenceDecode(words, d)
                        if case .float(let a) = got, case .float(let b) = want, a.isNaN, b.isNaN { continue }
                        XCTAssertEqual(got, want, "\(type) \(String(describing: word)) \(String(describing: byte)) \(words)")
                    }
                }
            }
        }
    }
}
