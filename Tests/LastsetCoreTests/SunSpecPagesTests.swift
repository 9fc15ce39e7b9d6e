import LastsetCore
import XCTest

/// Pages generated from a SunSpec model definition and the model's registers as a scan read them.
final class SunSpecPagesTests: XCTestCase {
    /// A model in SunSpec's JSON form: fixed points with scale factors, a group repeated N times (N a point), a
    /// group repeating to the model's end (count 0).
    static let definition = #"""
        {"id": 900, "group": {"name": "demo", "label": "Demo controls", "type": "group", "points": [
          {"name": "ID", "type": "uint16", "size": 1, "value": 900}, {"name": "L", "type": "uint16", "size": 1},
          {"name": "A", "type": "uint16", "size": 1, "access": "RW", "sf": "A_SF", "units": "A", "label": "Current"},
          {"name": "B", "type": "int16", "size": 1, "access": "RW"},
          {"name": "Mode", "type": "enum16", "size": 1, "access": "RW", "symbols": [{"name": "OFF", "value": 0}, {"name": "ON", "value": 1}]},
          {"name": "Name", "type": "string", "size": 4, "access": "RW"},
          {"name": "Tot", "type": "acc32", "size": 2, "access": "RW"},
          {"name": "F", "type": "float32", "size": 2, "access": "RW", "sf": 2},
          {"name": "RO", "type": "uint16", "size": 1},
          {"name": "A_SF", "type": "sunssf", "size": 1},
          {"name": "V_SF", "type": "sunssf", "size": 1},
          {"name": "N", "type": "uint16", "size": 1},
          {"name": "Pad", "type": "pad", "size": 1, "access": "RW"}],
         "groups": [
          {"name": "crv", "type": "group", "count": "N", "points": [{"name": "V", "type": "uint16", "size": 1, "access": "RW", "sf": "V_SF"}]},
          {"name": "fill", "type": "group", "count": 0, "points": [{"name": "X", "type": "int16", "size": 2, "access": "RW"}]}
         ]}}
        """#

    /// The model's registers after its header: A … N (15), then 2 × crv, then 2 × fill (int16 of size 2 is refused,
    /// so the fill group uses size-1 points in the good case below).
    static func words(aSF: UInt16 = 0xFFFE, vSF: UInt16 = 0x0001, n: UInt16 = 2) -> [UInt16] {
        // A, B, Mode, Name×4, Tot×2, F×2, RO, A_SF, V_SF, N, Pad
        [123, 0xFFCE, 1, 0x4142, 0, 0, 0, 0, 7, 0x4020, 0, 0xFFFF, aSF, vSF, n, 0] + [230, 231] + [5, 6, 7, 8]
    }

    static func model(_ words: [UInt16]) -> SunSpecChain.Model {
        SunSpecChain.Model(id: 900, address: 40002, length: words.count, words: words)
    }

    func testTheRWPointsBecomeRegistersWithTypesScalesAndNotImplementedValues() throws {
        let definition = Self.definition.replacingOccurrences(
            of: #"{"name": "X", "type": "int16", "size": 2"#, with: #"{"name": "X", "type": "int16", "size": 1"#)
        let generated = try SunSpecPages.page(
            definition: Array(definition.utf8), model: Self.model(Self.words()), pageId: "sunspec-900")
        let page = generated.page
        XCTAssertEqual(page.id, "sunspec-900")
        XCTAssertEqual(page.title, "SunSpec 900: Demo controls")
        XCTAssertEqual(page.unsetStyle, .sunspec)
        let r = Dictionary(uniqueKeysWithValues: page.registers.map { ($0.registerId, $0) })
        XCTAssertEqual(
            page.registers.map(\.registerId),
            [
                "sunspec900.A", "sunspec900.B", "sunspec900.Mode", "sunspec900.Name", "sunspec900.Tot", "sunspec900.F",
                "sunspec900.crv[1].V", "sunspec900.crv[2].V", "sunspec900.fill[1].X", "sunspec900.fill[2].X",
                "sunspec900.fill[3].X", "sunspec900.fill[4].X",
            ])
        XCTAssertEqual(r["sunspec900.A"]?.address, 40004, "header at 40002, A right after it")
        XCTAssertEqual(r["sunspec900.A"]?.scale, 0.01, "A_SF reads -2")
        XCTAssertEqual(r["sunspec900.A"]?.unit, "A")
        XCTAssertEqual(r["sunspec900.A"]?.name, "Current")
        XCTAssertEqual(r["sunspec900.B"]?.type, .s16)
        XCTAssertNil(r["sunspec900.B"]?.scale)
        XCTAssertEqual(r["sunspec900.Mode"]?.enum, [ExactNumber(Int64(0)), ExactNumber(Int64(1))])
        XCTAssertEqual(r["sunspec900.Name"]?.type, .string(8))
        XCTAssertEqual(r["sunspec900.Name"]?.unset, .bytes([0, 0, 0, 0, 0, 0, 0, 0]), "a SunSpec string not set is zeros")
        XCTAssertEqual(r["sunspec900.Tot"]?.type, .u32)
        XCTAssertEqual(r["sunspec900.Tot"]?.unset, .unsigned(0), "an accumulator not implemented is 0")
        XCTAssertEqual(r["sunspec900.F"]?.type, .f32)
        XCTAssertEqual(r["sunspec900.F"]?.scale, 100, "a literal scale factor")
        XCTAssertEqual(r["sunspec900.crv[1].V"]?.address, 40002 + 2 + 16)
        XCTAssertEqual(r["sunspec900.crv[2].V"]?.scale, 10, "V_SF of the model reads 1")
        XCTAssertEqual(r["sunspec900.fill[4].X"]?.address, 40002 + 2 + 16 + 2 + 3)
        XCTAssertNil(r["sunspec900.RO"], "read-only points are no page registers")
        XCTAssertNil(r["sunspec900.Pad"])
        XCTAssertTrue(generated.notes.isEmpty, "\(generated.notes)")
        // The generated page is one the config accepts.
        XCTAssertNoThrow(
            try ConfigLoader.check(
                Data(("{ version: 1, devices: [], pages: [ " + RegisterMapCSV.json(for: page) + " ] }").utf8), file: "g.json"))
    }

    func testWhatTheGeneratorCannotFollowIsAProblemOrANote() throws {
        let words = Self.words()
        let fixedFill = Self.definition.replacingOccurrences(
            of: #"{"name": "X", "type": "int16", "size": 2"#, with: #"{"name": "X", "type": "int16", "size": 1"#)
        let noScale = try SunSpecPages.page(
            definition: Array(fixedFill.utf8), model: Self.model(Self.words(aSF: 0x8000)), pageId: "p")
        XCTAssertNil(noScale.page.registers.first?.scale)
        XCTAssertEqual(noScale.notes, ["A: its scale factor A_SF is not implemented (0x8000): no scale"])
        let cases: [(String, String, SunSpecChain.Model, String)] = [
            ("int16 of two registers", Self.definition, Self.model(words), "point X has type \"int16\" of 2 registers"),
            (
                "another model", fixedFill.replacingOccurrences(of: #""id": 900"#, with: #""id": 901"#), Self.model(words),
                "the definition is model 901"
            ),
            ("not JSON", "{", Self.model(words), "not JSON"),
            (
                "count names nothing", fixedFill.replacingOccurrences(of: #""count": "N""#, with: #""count": "Q""#),
                Self.model(words),
                "group count \"Q\" names no point"
            ),
            (
                "past the length", fixedFill,
                SunSpecChain.Model(id: 900, address: 40002, length: 10, words: Array(words.prefix(10))),
                "past its length"
            ),
        ]
        for (name, definition, model, fragment) in cases {
            XCTAssertThrowsError(try SunSpecPages.page(definition: Array(definition.utf8), model: model, pageId: "p"), name) {
                XCTAssertTrue("\($0)".contains(fragment), "\(name): \($0)")
            }
        }
    }
}
