import LastsetCore
import XCTest

/// One classifier decides for capture, import and replay: archived, skipped (why) or invalid (why).
final class RegisterClassifierTests: XCTestCase {
    private func f32(_ bits: UInt32) -> [UInt16] { [UInt16(bits >> 16), UInt16(bits & 0xFFFF)] }

    func testVerdictsFromATable() {
        let nanBits = Float.nan.bitPattern
        let cases: [(String, RegisterDefinition, UnsetStyle, [UInt16], RegisterVerdict)] = [
            ("u16 value", .init(registerId: "a", address: 0, type: .u16), .maximum, [7], .archive),
            ("u16 max is unset", .init(registerId: "a", address: 0, type: .u16), .maximum, [0xFFFF], .skip(.unset)),
            ("s16 max is unset", .init(registerId: "a", address: 0, type: .s16), .maximum, [0x7FFF], .skip(.unset)),
            ("s16 min is a value by default", .init(registerId: "a", address: 0, type: .s16), .maximum, [0x8000], .archive),
            ("s16 min is unset under sunspec", .init(registerId: "a", address: 0, type: .s16), .sunspec, [0x8000], .skip(.unset)),
            ("s16 max is a value under sunspec", .init(registerId: "a", address: 0, type: .s16), .sunspec, [0x7FFF], .archive),
            (
                "s32 min under sunspec, little word order", .init(registerId: "a", address: 0, type: .s32, wordOrder: .little),
                .sunspec, [0x0000, 0x8000], .skip(.unset)
            ),
            ("f32 all-0xFF is unset", .init(registerId: "a", address: 0, type: .f32), .maximum, [0xFFFF, 0xFFFF], .skip(.unset)),
            (
                "f32 max finite is unset", .init(registerId: "a", address: 0, type: .f32), .maximum,
                f32(Float.greatestFiniteMagnitude.bitPattern), .skip(.unset)
            ),
            (
                "f32 other NaN is invalid", .init(registerId: "a", address: 0, type: .f32), .maximum, f32(nanBits),
                .invalid(.notFinite)
            ),
            (
                "f32 NaN is unset under sunspec", .init(registerId: "a", address: 0, type: .f32), .sunspec, f32(nanBits),
                .skip(.unset)
            ),
            (
                "f32 infinity stays invalid under sunspec", .init(registerId: "a", address: 0, type: .f32), .sunspec,
                f32(Float.infinity.bitPattern), .invalid(.notFinite)
            ),
            (
                "f64 all-0xFF is unset", .init(registerId: "a", address: 0, type: .f64), .maximum,
                [0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF], .skip(.unset)
            ),
            ("f32 1.5", .init(registerId: "a", address: 0, type: .f32), .maximum, f32(Float(1.5).bitPattern), .archive),
            (
                "unset {hex} for a u32", .init(registerId: "a", address: 0, type: .u32, unset: .bytes([0, 0, 0, 0])), .maximum,
                [0, 0], .skip(.unset)
            ),
            (
                "unset {hex} for a f32", .init(registerId: "a", address: 0, type: .f32, unset: .bytes([0x7F, 0xC0, 0, 0])),
                .maximum, [0x7FC0, 0], .skip(.unset)
            ),
            (
                "a declared unset replaces the default", .init(registerId: "a", address: 0, type: .u16, unset: .unsigned(0)),
                .maximum, [0xFFFF], .archive
            ),
            (
                "clone false before anything", .init(registerId: "a", address: 0, type: .u16, clone: false), .maximum, [0xFFFF],
                .skip(.notCloned)
            ),
            ("read-only", .init(registerId: "a", address: 0, type: .u16, access: .ro), .maximum, [1], .skip(.readOnly)),
            (
                "wrong length", .init(registerId: "a", address: 0, type: .u32), .maximum, [1],
                .invalid(.length(expected: 2, actual: 1))
            ),
            ("above max", .init(registerId: "a", address: 0, type: .s16, max: 900), .maximum, [950], .invalid(.aboveMax(900))),
            (
                "unset above max is still unset", .init(registerId: "a", address: 0, type: .u16, max: 900), .maximum, [0xFFFF],
                .skip(.unset)
            ),
            (
                "not in enum", .init(registerId: "a", address: 0, type: .u16, enum: [0, 1]), .maximum, [2],
                .invalid(.notInEnum([0, 1]))
            ),
            ("bad UTF-8", .init(registerId: "a", address: 0, type: .string(2)), .maximum, [0xC328], .invalid(.invalidUTF8)),
            ("blank string", .init(registerId: "a", address: 0, type: .string(2)), .maximum, [0xFFFF], .skip(.unset)),
        ]
        for (name, definition, style, words, expected) in cases {
            let register = CompiledRegister(definition, position: 0, style: style)
            XCTAssertEqual(RegisterClassifier.classify(words, register), expected, name)
        }
    }

    func testCompiledPageIndexesRegistersAndHashesOnce() throws {
        let page = PageDefinition(
            id: "p",
            registers: [
                RegisterDefinition(registerId: "x", address: 10, type: .u16),
                RegisterDefinition(registerId: "y", address: 11, type: .f32, clone: false),
            ])
        let compiled = CompiledPage(page)
        XCTAssertEqual(compiled.hash, page.hash)
        XCTAssertEqual(compiled.position(of: "y"), 1)
        XCTAssertEqual(compiled.register("y")?.eligibility, .skipped(.notCloned))
        XCTAssertEqual(compiled.register("x")?.eligibility, .eligible)
        XCTAssertNil(compiled.register("z"))
        // A device's convention changes what "not set" means, and so the hash.
        let sunspec = CompiledPage(page, deviceStyle: .sunspec)
        XCTAssertEqual(sunspec.unsetStyle, .sunspec)
        XCTAssertNotEqual(sunspec.hash, compiled.hash)
        var declared = page
        declared.unsetStyle = .sunspec
        XCTAssertEqual(CompiledPage(declared).hash, sunspec.hash)
        XCTAssertEqual(CompiledPage(declared, deviceStyle: .maximum).unsetStyle, .sunspec, "the page's own style wins")
    }

    func testCompiledConfigParsesEndpointsAndDurationsOnce() throws {
        let config = try CompiledConfig(
            LastsetConfig(
                devices: [
                    DeviceConfig(
                        id: "d", endpoint: "tcp://127.0.0.1:1502", unit: 3, pages: ["p"], poll: "250ms",
                        quirks: Quirks(maxReadRegisters: 40, timeout: "2s"), unsetStyle: .sunspec),
                    DeviceConfig(id: "e", endpoint: "rtu:///dev/ttyUSB0?baud=9600", unit: 1, poll: "0s"),
                ],
                pages: [PageDefinition(id: "p", registers: [RegisterDefinition(registerId: "r", address: 0, type: .s16)])]))
        let d = try XCTUnwrap(config.device("d"))
        XCTAssertEqual(d.endpoint, .tcp(host: "127.0.0.1", port: 1502))
        XCTAssertEqual(d.pollInterval, .milliseconds(250))
        XCTAssertEqual(d.limits.maxReadRegisters, 40)
        XCTAssertEqual(d.limits.timeout, .seconds(2))
        XCTAssertNil(config.device("e")?.pollInterval)
        XCTAssertEqual(config.page("p", on: "d")?.unsetStyle, .sunspec)
        XCTAssertEqual(config.page("p", on: "e")?.unsetStyle, .maximum)
        XCTAssertEqual(config.pages(of: d).map(\.id), ["p"])
        XCTAssertThrowsError(
            try CompiledConfig(LastsetConfig(devices: [DeviceConfig(id: "x", endpoint: "udp://x", unit: 1)], pages: [])))
    }
}

/// The in-place "not set" match (a value parsed into a temporary buffer) agrees with the array one.
final class UnsetPatternBufferTests: XCTestCase {
    func testBufferMatchAgreesWithArrayMatch() {
        let defs: [(RegisterDefinition, UnsetStyle)] = [
            (.init(registerId: "a", address: 0, type: .u16), .maximum), (.init(registerId: "a", address: 0, type: .s16), .sunspec),
            (.init(registerId: "a", address: 0, type: .f32), .maximum), (.init(registerId: "a", address: 0, type: .f32), .sunspec),
            (.init(registerId: "a", address: 0, type: .f64, wordOrder: .little), .sunspec),
            (.init(registerId: "a", address: 0, type: .u32, unset: .unsigned(0)), .maximum),
        ]
        let samples: [[UInt16]] = [
            [0xFFFF], [0x8000], [0x7FFF], [0x7FC0, 0x0000], [0xFFFF, 0xFFFF], [0x7F7F, 0xFFFF], [0, 0], [0x0000, 0x7FC0],
            [0, 0, 0, 0x7FF8], [0x7FF8, 0, 0, 0], [0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF], [1],
        ]
        var matched = 0
        for (def, style) in defs {
            let pattern = UnsetPattern(for: def, style: style)
            for words in samples {
                let inPlace = words.withUnsafeBufferPointer { pattern.matches($0) }
                XCTAssertEqual(inPlace, pattern.matches(words), "\(def.type) \(style) \(words)")
                if inPlace { matched += 1 }
            }
        }
        XCTAssertGreaterThan(matched, 5)
    }
}
