import Foundation
import LastsetCore
import XCTest

/// A page's declared reset marker (`resetMarker`): checked at load (the page, the register and the value named),
/// compiled to words, read from a poll's live values, and — when read — the only thing that says the page is at
/// factory values. Table-driven, no server.
final class ResetMarkerTests: XCTestCase {
    static func config(_ marker: String) -> String {
        """
        { version: 1, devices: [ { id: "d", endpoint: "tcp://127.0.0.1:1502", unit: 1, pages: ["p"] } ],
          pages: [ { id: "p", \(marker)
                     registers: [ { registerId: "r", address: 10, type: "u16" },
                                  { registerId: "configured", address: 11, type: "u16", access: "ro" },
                                  { registerId: "name", address: 12, type: "string(4)" } ] } ] }
        """
    }

    func testTheKeyIsCheckedAtLoadNamingThePageTheRegisterAndTheValue() throws {
        let cases: [(String, String, String, String)] = [
            (
                "a register the page lacks", #"resetMarker: { registerId: "nope", value: 0 },"#,
                "pages[0].resetMarker.registerId", #"page "p" has no register "nope""#
            ),
            (
                "a value too large for u16", #"resetMarker: { registerId: "configured", value: 70000 },"#,
                "pages[0].resetMarker.value", #"reset marker of page "p": not a value of register "configured" (u16)"#
            ),
            (
                "text for a number", #"resetMarker: { registerId: "r", value: "zero" },"#, "pages[0].resetMarker.value",
                #"not a value of register "r" (u16)"#
            ),
            ("no value", #"resetMarker: { registerId: "r" },"#, "pages[0].resetMarker.value", "required key \"value\""),
            (
                "an unknown key", #"resetMarker: { registerId: "r", value: 0, equals: 1 },"#,
                "pages[0].resetMarker.equals", "unknown key"
            ),
            ("not an object", #"resetMarker: 0,"#, "pages[0].resetMarker", "must be an object"),
            (
                "a value of another shape", #"resetMarker: { registerId: "r", value: [0] },"#, "pages[0].resetMarker.value",
                "must be a number, a string or {hex"
            ),
        ]
        for (name, marker, path, fragment) in cases {
            XCTAssertThrowsError(try ConfigLoader.check(Data(Self.config(marker).utf8), file: "c.json"), name) { error in
                let problems = (error as? ConfigErrors)?.problems ?? []
                XCTAssertEqual(problems.map(\.path), [path], "\(name): \(error)")
                XCTAssertTrue(problems.contains { $0.message.contains(fragment) }, "\(name): \(problems)")
            }
        }
        let config = try CompiledConfig(
            try ConfigLoader.check(
                Data(Self.config(#"resetMarker: { registerId: "configured", value: 0 },"#).utf8), file: "c.json"))
        let page = try XCTUnwrap(config.page("p", on: "d"))
        XCTAssertEqual(page.resetMarker, CompiledResetMarker(ResetMarker(registerId: "configured", value: .unsigned(0)), on: page.definition))
        XCTAssertEqual(page.resetMarker?.words, [0])
        // Not part of the page hash: declaring a marker changes no template's admission.
        let plain = try CompiledConfig(try ConfigLoader.check(Data(Self.config("").utf8), file: "c.json"))
        XCTAssertNil(try XCTUnwrap(plain.page("p", on: "d")).resetMarker)
        XCTAssertEqual(try XCTUnwrap(plain.page("p", on: "d")).hash, page.hash)
        // Text and hex markers compile to the register's words.
        let text = try CompiledConfig(
            try ConfigLoader.check(Data(Self.config(#"resetMarker: { registerId: "name", value: "INIT" },"#).utf8), file: "c.json"))
        XCTAssertEqual(try XCTUnwrap(text.page("p", on: "d")).resetMarker?.words, [0x494E, 0x4954])
    }

    func testWhenReadTheMarkerAloneSaysWhetherThePageIsAtFactoryValues() throws {
        let config = try CompiledConfig(
            try ConfigLoader.check(
                Data(Self.config(#"resetMarker: { registerId: "configured", value: 0 },"#).utf8), file: "c.json"))
        let page = try XCTUnwrap(config.page("p", on: "d"))
        let applied = AppliedTemplate(
            version: 1, pageHash: page.hash, appliedAt: Date(), appliedBy: "token:olga", job: "j",
            entries: [RecordedValue(registerId: "r", address: 10, valueData: "00D7", value: .unsigned(215))])
        let known = MachineFingerprint(model: ["model": "00C8"])
        func live(r: String?, configured: String?) -> [LiveValue] {
            [("r", 10, r), ("configured", 11, configured)].map { id, address, hex in
                LiveValue(
                    registerId: id, address: address, valueData: hex, value: nil, lastDate: hex == nil ? nil : Date(),
                    error: hex == nil ? "not read" : nil)
            }
        }
        struct Case {
            let name: String
            let r: String?
            let configured: String?
            let marker: Bool?
            let verdict: MachineVerdict
            let setElsewhere: [String]
        }
        let cases = [
            // The factory's value (100) is not "not set" (0xFFFF): only the marker tells the reset.
            Case(
                name: "marker set, factory values", r: "0064", configured: "0000", marker: true,
                verdict: .factoryReset(pages: ["p"]), setElsewhere: []),
            Case(
                name: "marker set, register not read", r: nil, configured: "0000", marker: true,
                verdict: .factoryReset(pages: ["p"]), setElsewhere: ["r (not read)"]),
            Case(
                name: "marker clear, a value changed", r: "0064", configured: "0001", marker: false,
                verdict: .changedElsewhere(registers: ["p": ["r"]]), setElsewhere: ["r"]),
            Case(
                name: "marker clear, every register not set: the marker decides", r: "FFFF", configured: "0001",
                marker: false, verdict: .changedElsewhere(registers: ["p": ["r"]]), setElsewhere: []),
            Case(
                name: "marker clear, conforming", r: "00D7", configured: "0001", marker: false,
                verdict: .sameAndConforming, setElsewhere: []),
            Case(
                name: "marker set, every value applied (a restore the marker outlives)", r: "00D7", configured: "0000",
                marker: true, verdict: .sameAndConforming, setElsewhere: []),
            Case(
                name: "marker not read: the not-set rule", r: "FFFF", configured: nil, marker: nil,
                verdict: .factoryReset(pages: ["p"]), setElsewhere: []),
        ]
        for c in cases {
            let reading = AppliedPageReading(page: page, applied: applied, live: live(r: c.r, configured: c.configured))
            XCTAssertEqual(reading.resetMarker, c.marker, c.name)
            XCTAssertEqual(reading.setElsewhere, c.setElsewhere, c.name)
            XCTAssertEqual(ReconnectClassifier.classify(known: known, now: known, pages: [reading]), c.verdict, c.name)
        }
    }
}
