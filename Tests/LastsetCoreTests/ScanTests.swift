import Foundation
import LastsetCore
import XCTest

/// Discovery's pure decisions: the units named, a probe's verdict, the SunSpec chain walk, whether a template fits a
/// device found, and its config entry. Table-driven, no server.
final class ScanTests: XCTestCase {
    func testUnitSelection() {
        let good: [(String, [Int])] = [
            ("1-247", Array(1...247)), ("3,17,42", [3, 17, 42]), ("42,3,17,3", [3, 17, 42]), ("1-3,2-4", [1, 2, 3, 4]),
            ("247", [247]), ("1-1", [1]),
        ]
        for (text, units) in good {
            guard case .success(let parsed) = UnitSelection.parse(text) else { return XCTFail(text) }
            XCTAssertEqual(parsed, units, text)
        }
        let bad: [(String, String)] = [
            ("0", #"bad units "0": "0": units are 1…247 (0 is broadcast)"#), ("1-248", "units are 1…247"),
            ("", "expected N or N-M"), ("3,,4", "expected N or N-M"), ("5-3", "5 is greater than 3"),
            ("a-b", "expected N or N-M"),
            ("1-2-3", "expected N or N-M"), ("-1", "expected N or N-M"),
        ]
        for (text, fragment) in bad {
            guard case .failure(let error) = UnitSelection.parse(text) else { return XCTFail("accepted \(text)") }
            XCTAssertTrue(error.description.contains(fragment), "\(text): \(error)")
        }
    }

    func testProbeVerdicts() {
        let cases: [(ProbeAnswer, Int, ProbeVerdict)] = [
            (.words([7]), 0, .present), (.exception(1), 0, .present), (.exception(2), 0, .present),
            (.exception(4), 0, .present), (.exception(6), 0, .present), (.exception(0x0A), 0, .absent),
            (.exception(0x0B), 0, .absent), (.timeout, 0, .absent), (.garbled, 0, .probeAgain), (.garbled, 1, .absent),
            (.unreachable("refused"), 0, .unreachable("refused")),
        ]
        for (answer, attempt, verdict) in cases {
            XCTAssertEqual(ProbeVerdict.of(answer, attempt: attempt), verdict, "\(answer) attempt \(attempt)")
        }
    }

    func testSunSpecChainWalk() {
        var chain = SunSpecChain(base: 40000)
        XCTAssertEqual(chain.next, 40002)
        chain.take(header: [1, 66])
        XCTAssertEqual(chain.next, 40070)
        chain.take(header: [123, 24])
        XCTAssertEqual(chain.next, 40096)
        chain.take(header: [0xFFFF, 0])
        XCTAssertNil(chain.next)
        XCTAssertNil(chain.cut)
        XCTAssertEqual(chain.realModels.map(\.id), [1, 123])
        XCTAssertEqual(chain.realModels.map(\.address), [40002, 40070])

        var past = SunSpecChain(base: 65000)
        past.take(header: [1, 600])
        XCTAssertNil(past.next)
        XCTAssertEqual(past.cut, "model 1 at 65002 of 600 registers runs past address 65535")
        var endless = SunSpecChain(base: 0)
        for _ in 0..<200 where endless.next != nil { endless.take(header: [64, 0]) }
        XCTAssertEqual(endless.realModels.count, SunSpecChain.maxModels)
        XCTAssertEqual(endless.cut, "more than 128 models")
    }

    private static let page = CompiledPage(
        PageDefinition(
            id: "heating", identity: [IdentityRegister(registerId: "model", address: 0, type: .u16)],
            registers: [RegisterDefinition(registerId: "r", address: 10, type: .u16)],
            identityObjects: [IdentityObject(object: .productCode)]))

    private static func template(model: String, product: String) -> Template {
        Template(
            pageId: "heating", pageHash: page.hash, version: 3, capturedAt: Date(timeIntervalSince1970: 0), capturedBy: "t",
            source: TemplateSource(
                deviceId: "a", endpoint: "tcp://x:1", unit: 1,
                identity: [
                    RecordedValue(registerId: "model", address: 0, valueData: model, value: .unsigned(0)),
                    IdentityObject(object: .productCode).recorded(
                        IdentificationObject(id: .productCode, value: Array(product.utf8))),
                ]),
            entries: [], skipped: [])
    }

    func testTemplateFit() {
        let identification = DeviceIdentification(
            conformity: ConformityLevel(category: .basic, individualAccess: false),
            objects: [IdentificationObject(id: .productCode, value: Array("PRS-200".utf8))])
        let cases: [(String, Template?, [String: [UInt16]], DeviceIdentification?, Bool?, [Bool])] = [
            (
                "same model and product", Self.template(model: "00C8", product: "PRS-200"), ["model": [200]], identification,
                true, [true, true]
            ),
            (
                "another model word", Self.template(model: "00C9", product: "PRS-200"), ["model": [200]], identification, false,
                [false, true]
            ),
            (
                "another product", Self.template(model: "00C8", product: "PRS-300"), ["model": [200]], identification, false,
                [true, false]
            ),
            ("register not read", Self.template(model: "00C8", product: "PRS-200"), [:], identification, false, [false, true]),
            ("no FC43", Self.template(model: "00C8", product: "PRS-200"), ["model": [200]], nil, false, [true, false]),
            ("no template", nil, ["model": [200]], identification, false, []),
        ]
        for (name, template, words, id, fits, checks) in cases {
            let fit = TemplateFit.judge(page: Self.page, template: template, words: words, identification: id)
            XCTAssertEqual(fit?.fits, fits, name)
            XCTAssertEqual(fit?.checks.map(\.matches), checks, name)
            if template != nil { XCTAssertEqual(fit?.versionId, "3", name) }
        }
        let noIdentity = CompiledPage(PageDefinition(id: "p", registers: []))
        XCTAssertNil(TemplateFit.judge(page: noIdentity, template: nil, words: [:], identification: identification))
    }

    func testConfigEntryOfAFoundDevice() {
        var device = FoundDevice(
            endpoint: "rtu:///dev/ttyUSB0?baud=19200&parity=N&data=8&stop=1", unit: 17, answered: "registers")
        XCTAssertEqual(device.suggestedId, "unit-17")
        device.identification = DeviceIdentification(
            conformity: ConformityLevel(category: .basic, individualAccess: false),
            objects: [IdentificationObject(id: .productCode, value: Array("PRS 200/X".utf8))])
        device.fits = [
            TemplateFit(pageId: "heating", versionId: "3", fits: true, checks: []),
            TemplateFit(pageId: "motion", versionId: "1", fits: false, checks: []),
        ]
        XCTAssertEqual(device.suggestedId, "prs-200-x-17")
        XCTAssertTrue(SafeName.isValid(device.suggestedId))
        XCTAssertEqual(
            device.configEntry,
            #"{ id: "prs-200-x-17", endpoint: "rtu:///dev/ttyUSB0?baud=19200&parity=N&data=8&stop=1", unit: 17, pages: ["heating"] },"#
        )
        device.identification = DeviceIdentification(
            conformity: ConformityLevel(category: .basic, individualAccess: false),
            objects: [IdentificationObject(id: .productCode, value: Array("--".utf8))])
        XCTAssertEqual(device.suggestedId, "unit-17")
        let entry = try? ConfigLoader.check(
            Data("{ version: 1, devices: [ \(device.configEntry) ], pages: [ { id: \"heating\", registers: [] } ] }".utf8),
            file: "entry.json")
        XCTAssertEqual(entry?.devices.first?.unit, 17, "the entry is accepted by the config checker")
    }
}
