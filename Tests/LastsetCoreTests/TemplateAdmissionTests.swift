import Foundation
import XCTest

@testable import LastsetCore
import LastsetFormats

/// The one admission decision for a template on a page (capture, imports, fleet adoption, replay, dry run,
/// conformance): a table of templates and pages in, a verdict per entry out.
final class TemplateAdmissionTests: XCTestCase {
    static let registers: [RegisterDefinition] = [
        RegisterDefinition(registerId: "heating.mode", address: 100, type: .u16, enum: [0, 1, 2]),
        RegisterDefinition(registerId: "heating.setpoint", address: 101, type: .s16, min: -200, max: 900, scale: 0.1),
        RegisterDefinition(registerId: "heating.energy", address: 102, type: .u32, wordOrder: .little),
        RegisterDefinition(registerId: "heating.ramp", address: 104, type: .f32),
        RegisterDefinition(registerId: "heating.label", address: 110, type: .string(16)),
        RegisterDefinition(registerId: "heating.hours", address: 130, type: .u16, access: .ro),
        RegisterDefinition(registerId: "comm.unit", address: 200, type: .u16, clone: false),
    ]
    static let page = PageDefinition(id: "heating", registers: registers)
    static let words: [String: [UInt16]] = [
        "heating.mode": [2], "heating.setpoint": [0xFF6A], "heating.energy": [0xE240, 0x0001],
        "heating.ramp": [0x4020, 0x0000], "heating.label": DaemonLikeText.words("Line 3", bytes: 16),
        "heating.hours": [7], "comm.unit": [17],
    ]

    /// A template of `page` as a capture makes it: an entry per writable, cloned register, its layout recorded.
    static func captured(_ definition: PageDefinition = page) -> Template {
        let compiled = CompiledPage(definition)
        let entries = compiled.registers.filter { $0.eligibility == .eligible }.map {
            TemplateEntry(register: $0, words: words[$0.registerId]!, lastDate: Date(timeIntervalSince1970: 1_800_000_000))
        }
        return Template(
            pageId: definition.id, pageHash: compiled.hash, version: 1, capturedAt: Date(timeIntervalSince1970: 1_800_000_000),
            capturedBy: "uid:0",
            source: TemplateSource(deviceId: "press-a", endpoint: "tcp://127.0.0.1:1", unit: 1, identity: []),
            entries: entries, skipped: [])
    }

    private static func edited(_ body: (inout PageDefinition) -> Void) -> PageDefinition {
        var p = page
        body(&p)
        return p
    }

    private static func index(_ id: String) -> Int { registers.firstIndex { $0.registerId == id }! }

    private static func entryEdited(_ id: String, _ body: (inout TemplateEntry) -> Void) -> Template {
        var t = captured()
        let i = t.entries.firstIndex { $0.registerId == id }!
        body(&t.entries[i])
        return t
    }

    /// What a verdict says, short: `ok`, `out`, or the refusal's reason.
    enum Short: Equatable, CustomStringConvertible {
        case ok(RegisterValue)
        case out
        case refused(EntryRefusal.Reason)
        var description: String {
            switch self {
            case .ok(let v): return "ok(\(v))"
            case .out: return "left out"
            case .refused(let r): return "refused(\(r))"
            }
        }
    }

    private static func short(_ v: EntryVerdict) -> Short {
        switch v {
        case .admitted(_, let value): return .ok(value)
        case .leftOut: return .out
        case .refused(let r): return .refused(r.reason)
        }
    }

    static let allAdmitted: [String: Short] = [
        "heating.mode": .ok(.unsigned(2)), "heating.setpoint": .ok(.signed(-150)), "heating.energy": .ok(.unsigned(123456)),
        "heating.ramp": .ok(.float(2.5)), "heating.label": .ok(.text("Line 3")),
    ]

    private static func except(_ changes: [String: Short]) -> [String: Short] {
        allAdmitted.merging(changes) { _, new in new }
    }

    func testVerdictsFromATable() {
        let noLayout: Template = {
            var t = Self.captured()
            for i in t.entries.indices { t.entries[i].layout = nil }
            return t
        }()
        let gained = Self.edited {
            $0.registers.append(RegisterDefinition(registerId: "heating.boost", address: 140, type: .u16))
        }
        let cases: [(name: String, template: Template, page: PageDefinition, expected: [String: Short], line: UInt)] = [
            ("the page it was captured from", Self.captured(), Self.page, Self.allAdmitted, #line),
            ("a page that gained a register", Self.captured(), gained, Self.allAdmitted, #line),
            (
                "a page that lost a register: left out, the rest fits", Self.captured(),
                Self.edited { $0.registers.remove(at: Self.index("heating.label")) }, Self.except(["heating.label": .out]), #line
            ),
            (
                "word order little → big", Self.captured(),
                Self.edited { $0.registers[Self.index("heating.energy")].wordOrder = .big },
                Self.except([
                    "heating.energy": .refused(.layoutChanged([LayoutChange(field: .wordOrder, from: "little", to: "big")]))
                ]), #line
            ),
            (
                "byte order big → little", Self.captured(),
                Self.edited { $0.registers[Self.index("heating.energy")].byteOrder = .little },
                Self.except([
                    "heating.energy": .refused(.layoutChanged([LayoutChange(field: .byteOrder, from: "big", to: "little")]))
                ]), #line
            ),
            (
                "type u32 → s32", Self.captured(), Self.edited { $0.registers[Self.index("heating.energy")].type = .s32 },
                Self.except([
                    "heating.energy": .refused(
                        .layoutChanged([
                            LayoutChange(field: .type, from: "u32", to: "s32"),
                            LayoutChange(field: .unset, from: "FFFFFFFF", to: "FFFF7FFF"),
                        ]))
                ]),
                #line
            ),
            (
                "type f32 → u32 (same length)", Self.captured(),
                Self.edited { $0.registers[Self.index("heating.ramp")].type = .u32 },
                Self.except([
                    "heating.ramp": .refused(
                        .layoutChanged([
                            LayoutChange(field: .type, from: "f32", to: "u32"),
                            LayoutChange(field: .unset, from: "7F7FFFFF or FFFFFFFF", to: "FFFFFFFF"),
                        ]))
                ]), #line
            ),
            (
                "\"not set\" 7FFF → 0000", Self.captured(),
                Self.edited { $0.registers[Self.index("heating.setpoint")].unset = .unsigned(0) },
                Self.except([
                    "heating.setpoint": .refused(.layoutChanged([LayoutChange(field: .unset, from: "7FFF", to: "0000")]))
                ]), #line
            ),
            (
                "the page's \"not set\" convention", Self.captured(), Self.edited { $0.unsetStyle = .sunspec },
                Self.except([
                    "heating.setpoint": .refused(.layoutChanged([LayoutChange(field: .unset, from: "7FFF", to: "8000")])),
                    "heating.ramp": .refused(
                        .layoutChanged([LayoutChange(field: .unset, from: "7F7FFFFF or FFFFFFFF", to: "any NaN")])),
                ]), #line
            ),
            (
                "a meaningless word order on a one-register number changes nothing", Self.captured(),
                Self.edited { $0.registers[Self.index("heating.mode")].wordOrder = .little }, Self.allAdmitted, #line
            ),
            (
                "spelling out the default byte order changes nothing", Self.captured(),
                Self.edited { $0.registers[Self.index("heating.energy")].byteOrder = .big }, Self.allAdmitted, #line
            ),
            (
                "moved to another address", Self.captured(),
                Self.edited { $0.registers[Self.index("heating.energy")].address = 106 },
                Self.except(["heating.energy": .refused(.moved(address: 102, length: 2, pageAddress: 106, pageLength: 2))]),
                #line
            ),
            (
                "a rule tightened since capture", Self.captured(),
                Self.edited { $0.registers[Self.index("heating.setpoint")].min = -100 },
                Self.except(["heating.setpoint": .refused(.verdict(.invalid(.belowMin(-100)), value: .signed(-150)))]), #line
            ),
            (
                "a register made read-only", Self.captured(),
                Self.edited { $0.registers[Self.index("heating.mode")].access = .ro },
                Self.except(["heating.mode": .refused(.verdict(.skip(.readOnly), value: .unsigned(2)))]), #line
            ),
            ("no layout recorded, the same page definition", noLayout, Self.page, Self.allAdmitted, #line),
            (
                "no layout recorded, the page changed", noLayout, gained,
                Self.allAdmitted.mapValues { _ in
                    .refused(.layoutNotRecorded(templateHash: CompiledPage(Self.page).hash, pageHash: CompiledPage(gained).hash))
                }, #line
            ),
            (
                "value disagrees with valueData (defect 3)",
                Self.entryEdited("heating.setpoint") {
                    $0.value = .signed(-150)
                    $0.valueData = "0384"
                }, Self.page,
                Self.except([
                    "heating.setpoint": .refused(.valueMismatch(stated: .signed(-150), decoded: .signed(900), valueData: "0384"))
                ]), #line
            ),
            (
                "a text value that is not the text held", Self.entryEdited("heating.label") { $0.value = .text("Line 4") },
                Self.page,
                Self.except([
                    "heating.label": .refused(
                        .valueMismatch(
                            stated: .text("Line 4"), decoded: .text("Line 3"), valueData: "4C696E65203300000000000000000000"))
                ]), #line
            ),
            (
                "a number held in another case is the same value",
                {
                    var t = Self.captured()
                    t.entries[0].value = .signed(2)  // u16 stated as signed
                    t.entries[1].value = .float(-150)  // s16 stated as a float
                    t.entries[2].value = .float(123456)  // u32 stated as a float
                    return t
                }(), Self.page, Self.allAdmitted, #line
            ),
            (
                "a float register stated as a whole number",
                Self.entryEdited("heating.ramp") {
                    $0.valueData = "42B40000"
                    $0.value = .unsigned(90)
                }, Self.page, Self.except(["heating.ramp": .ok(.float(90))]), #line
            ),
            (
                "valueData too short", Self.entryEdited("heating.energy") { $0.valueData = "E240" }, Self.page,
                Self.except(["heating.energy": .refused(.malformedData(valueData: "E240", byteCount: 4))]), #line
            ),
            (
                "valueData not hex", Self.entryEdited("heating.mode") { $0.valueData = "00G2" }, Self.page,
                Self.except(["heating.mode": .refused(.malformedData(valueData: "00G2", byteCount: 2))]), #line
            ),
            (
                "holds the \"not set\" default",
                Self.entryEdited("heating.mode") {
                    $0.valueData = "FFFF"
                    $0.value = .unsigned(65535)
                }, Self.page, Self.except(["heating.mode": .refused(.verdict(.skip(.unset), value: .unsigned(65535)))]), #line
            ),
        ]
        for c in cases {
            let admission = TemplateAdmission.admit(c.template, to: CompiledPage(c.page), localHost: nil)
            XCTAssertEqual(admission.verdicts.count, c.template.entries.count, c.name, line: c.line)
            var got: [String: Short] = [:]
            for (e, v) in zip(c.template.entries, admission.verdicts) { got[e.registerId] = Self.short(v) }
            XCTAssertEqual(got, c.expected, c.name, line: c.line)
            let refused = c.expected.values.contains { if case .refused = $0 { true } else { false } }
            XCTAssertEqual(admission.isAdmissible, !refused, c.name, line: c.line)
        }
    }

    func testAdmittedEntriesKnowTheirPagePosition() {
        let reordered = Self.edited { $0.registers.swapAt(0, 2) }
        let admission = TemplateAdmission.admit(Self.captured(), to: CompiledPage(reordered), localHost: nil)
        let positions = admission.verdicts.map { v -> Int? in if case .admitted(let p, _) = v { p } else { nil } }
        XCTAssertEqual(positions, [2, 1, 0, 3, 4])
    }

    func testRepeatsAndAnotherPageAreRefused() {
        var twice = Self.captured()
        twice.entries.append(twice.entries[0])
        let admission = TemplateAdmission.admit(twice, to: CompiledPage(Self.page), localHost: nil)
        XCTAssertEqual(admission.refusals, [EntryRefusal(registerId: "heating.mode", reason: .repeated)])

        var gone = Self.captured()
        gone.entries.append(
            TemplateEntry(registerId: "x", address: 1, length: 1, valueData: "0001", value: .unsigned(1), lastDate: Date()))
        gone.entries.append(gone.entries.last!)
        let goneTwice = TemplateAdmission.admit(gone, to: CompiledPage(Self.page), localHost: nil)
        XCTAssertEqual(goneTwice.leftOut.map(\.registerId), ["x"])
        XCTAssertEqual(goneTwice.refusals, [EntryRefusal(registerId: "x", reason: .repeated)])

        var other = Self.captured()
        other.pageId = "cooling"
        let refused = TemplateAdmission.admit(other, to: CompiledPage(Self.page), localHost: nil)
        XCTAssertFalse(refused.isAdmissible)
        XCTAssertEqual(refused.otherPage, "cooling")
        XCTAssertEqual(refused.refusalText, "template is for page \"cooling\", not \"heating\"")
    }

    func testRefusalsNameTheRegisterAndWhatChanged() {
        let cases: [(EntryRefusal.Reason, String)] = [
            (
                .layoutChanged([LayoutChange(field: .wordOrder, from: "little", to: "big")]),
                "heating.energy: layout changed since capture: wordOrder little → big"
            ),
            (
                .valueMismatch(stated: .signed(-150), decoded: .signed(900), valueData: "0384"),
                "heating.energy: value -150 is not what valueData 0384 holds (900): value and valueData disagree"
            ),
            (.notOnPage("heating"), "heating.energy: not a register of page \"heating\" any more"),
            (
                .moved(address: 102, length: 2, pageAddress: 106, pageLength: 2),
                "heating.energy: template has address 102 length 2, page has 106 length 2"
            ),
            (.verdict(.invalid(.aboveMax(40)), value: .unsigned(50)), "heating.energy: value 50 breaks above max 40"),
        ]
        for (reason, text) in cases {
            XCTAssertEqual(EntryRefusal(registerId: "heating.energy", reason: reason).description, text)
        }
        // A whole old template refused for want of layouts is named once, not once per entry.
        let old = EntryRefusal.Reason.layoutNotRecorded(templateHash: "sha256:1", pageHash: "sha256:2")
        let line = TemplateAdmission.text(
            ["a", "b", "c", "d", "e", "f"].map { EntryRefusal(registerId: $0, reason: old) } + [
                EntryRefusal(registerId: "g", reason: .repeated)
            ])
        XCTAssertEqual(
            line,
            "a, b, c, d, e and 1 more: the template records no register layout (made before layouts were kept) and the page definition changed since capture (template sha256:1, page now sha256:2): capture it again; g: appears twice in the template"
        )
    }

    /// The layout is part of the file (sorted keys, as its Codable form), and a file without it stays readable.
    func testTheLayoutRoundTripsThroughTheFileAndOldFilesStayReadable() throws {
        let template = Self.captured()
        let data = TemplateFile.encode(template)
        let decoded = try TemplateFile.decode(data)
        XCTAssertEqual(decoded, template)
        XCTAssertEqual(decoded.entries.map(\.layout), template.entries.map(\.layout))
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(
            text.contains(
                #"{"address":102,"lastDate":"2027-01-15T08:00:00.000Z","layout":{"byteOrder":"big","type":"u32","unset":["FFFFFFFF"],"wordOrder":"little"},"length":2,"registerId":"heating.energy","value":123456,"valueData":"E2400001"}"#
            ), text)
        XCTAssertTrue(
            text.contains(#""layout":{"byteOrder":"big","type":"f32","unset":["7F7FFFFF","FFFFFFFF"],"wordOrder":"big"}"#), text)
        // The writer's form is the Codable form.
        for e in template.entries {
            var w = JSONWriter(capacity: 64)
            e.layout!.write(to: &w)
            let encoder = APICoding.encoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            XCTAssertEqual(
                String(decoding: w.bytes, as: UTF8.self), String(decoding: try encoder.encode(e.layout!), as: UTF8.self))
        }
        // NaN "not set" (SunSpec) is kept.
        let sunspec = CompiledPage(Self.edited { $0.unsetStyle = .sunspec })
        let nan = EntryLayout(sunspec.register("heating.ramp")!)
        XCTAssertEqual(try APICoding.decoder().decode(EntryLayout.self, from: try APICoding.encoder().encode(nan)), nan)
        XCTAssertTrue(nan.unsetNaN)

        // A file from before layouts were kept: no "layout" key.
        var old = template
        for i in old.entries.indices { old.entries[i].layout = nil }
        let oldData = TemplateFile.encode(old)
        XCTAssertFalse(String(decoding: oldData, as: UTF8.self).contains("layout"))
        XCTAssertEqual(try TemplateFile.decode(oldData).entries.map(\.layout), old.entries.map { _ in nil })
    }

    /// What listings, `show` and health say of a version: applicable or not, why, and what a replay leaves out.
    func testApplicabilitySummarisesTheDecision() throws {
        let cases: [(PageDefinition, TemplateApplicability, String?, UInt)] = [
            (Self.page, TemplateApplicability(applicable: true, refused: [], leftOut: []), nil, #line),
            (
                Self.edited { $0.registers.remove(at: Self.index("heating.label")) },
                TemplateApplicability(applicable: true, refused: [], leftOut: ["heating.label"]), nil, #line
            ),
            (
                Self.edited { $0.registers[Self.index("heating.energy")].wordOrder = .big },
                TemplateApplicability(
                    applicable: false, refused: ["heating.energy: layout changed since capture: wordOrder little → big"],
                    leftOut: []),
                "not applicable here: heating.energy: layout changed since capture: wordOrder little → big", #line
            ),
            (
                Self.edited { $0.id = "cooling" },
                TemplateApplicability(
                    applicable: false, refused: ["template is for page \"heating\", not \"cooling\""], leftOut: []),
                "not applicable here: template is for page \"heating\", not \"cooling\"", #line
            ),
        ]
        for (page, expected, text, line) in cases {
            let a = TemplateApplicability(TemplateAdmission.admit(Self.captured(), to: CompiledPage(page), localHost: nil))
            XCTAssertEqual(a, expected, line: line)
            XCTAssertEqual(a.text, text, line: line)
        }
        // `show`'s body is the template's own object with `applicableHere` beside its keys.
        let shown = ShownTemplate(
            template: Self.captured(), applicableHere: TemplateApplicability(applicable: true, refused: [], leftOut: []))
        let json = try APICoding.encoder().encode(shown)
        XCTAssertEqual(try APICoding.decoder().decode(Template.self, from: json), shown.template)
        XCTAssertEqual(try APICoding.decoder().decode(ShownTemplate.self, from: json), shown)
        let bare = try APICoding.encoder().encode(Self.captured())
        XCTAssertNil(try APICoding.decoder().decode(ShownTemplate.self, from: bare).applicableHere)
    }

    func testALayoutThatCannotBeReadIsRefused() {
        for bad in [
            #"{"byteOrder":"big","type":"u33","unset":[]}"#, #"{"byteOrder":"big","type":"u16","unset":["FFF"]}"#,
            #"{"byteOrder":"big","type":"u16","unset":[],"wordOrder":"little"}"#,
            #"{"byteOrder":"middle","type":"u16","unset":[]}"#,
        ] {
            XCTAssertThrowsError(try APICoding.decoder().decode(EntryLayout.self, from: Data(bad.utf8)), bad)
        }
    }
}

/// Text as register words, NUL-padded (as a device holds a `string(n)`).
enum DaemonLikeText {
    static func words(_ s: String, bytes: Int) -> [UInt16] {
        [UInt16](bigEndianBytes: Array(s.utf8) + [UInt8](repeating: 0, count: bytes - s.utf8.count))
    }
}
