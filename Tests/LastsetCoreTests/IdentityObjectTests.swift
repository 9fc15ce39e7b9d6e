import Foundation
import LastsetCore
import XCTest

/// A page's identity naming FC43 objects: how the config is checked, what the page hash becomes, and the one
/// decision a replay makes per object (`IdentityObject.check`). Table-driven, no server.
final class IdentityObjectTests: XCTestCase {
    private static func page(_ identity: String) -> String {
        """
        { version: 1, devices: [],
          pages: [ { id: "p", identity: [ \(identity) ], registers: [ { registerId: "r", address: 1, type: "u16" } ] } ] }
        """
    }

    func testObjectsAndRegistersAreCheckedAndKeptApart() throws {
        let config = try ConfigLoader.check(
            Data(
                Self.page(
                    #"{ object: "ProductCode" }, { registerId: "model", address: 0, type: "u16" }, { object: "MajorMinorRevision", match: "^3\\." }, { object: "0x81" }"#
                ).utf8), file: "c.json")
        let page = try XCTUnwrap(config.pages.first)
        XCTAssertEqual(page.identity?.map(\.registerId), ["model"])
        XCTAssertEqual(
            page.identityObjects,
            [
                IdentityObject(object: .productCode), IdentityObject(object: .majorMinorRevision, match: #"^3\."#),
                IdentityObject(object: IdentificationObjectId(rawValue: 0x81)),
            ])
        XCTAssertEqual(page.identityObjects?.map(\.recordedId), ["fc43:ProductCode", "fc43:MajorMinorRevision", "fc43:0x81"])
    }

    func testEveryBadObjectIsAProblemNamingItsPathAndValue() {
        let cases: [(String, String, String, [String])] = [
            (
                "unknown name", #"{ object: "ProductKode" }"#, "pages[0].identity[0].object",
                ["unknown identification object", "\"ProductKode\""]
            ),
            (
                "reserved id", #"{ object: "0x07" }"#, "pages[0].identity[0].object",
                ["unknown identification object", "0x80…0xFF"]
            ),
            (
                "bad pattern", #"{ object: "ProductCode", match: "(" }"#, "pages[0].identity[0].match",
                ["not a regular expression", "\"(\""]
            ),
            ("object twice", #"{ object: "0x81" }, { object: "0x81" }"#, "pages[0].identity[1].object", ["identity object"]),
            ("a register key", #"{ object: "ProductCode", address: 3 }"#, "pages[0].identity[0].address", []),
            ("not a string", #"{ object: 1 }"#, "pages[0].identity[0].object", ["must be a string"]),
        ]
        for (name, identity, path, fragments) in cases {
            XCTAssertThrowsError(try ConfigLoader.check(Data(Self.page(identity).utf8), file: "c.json"), name) { error in
                let problems = (error as? ConfigErrors)?.problems ?? []
                XCTAssertEqual(problems.map(\.path), [path], "\(name): \(error)")
                let text = problems.map { $0.message + " got " + $0.value }.joined()
                for f in fragments { XCTAssertTrue(text.contains(f), "\(name): \(text) lacks \(f)") }
            }
        }
    }

    func testThePageHashChangesOnlyForAPageNamingObjects() throws {
        let plain = PageDefinition(id: "p", registers: [RegisterDefinition(registerId: "r", address: 1, type: .u16)])
        var named = plain
        named.identityObjects = [IdentityObject(object: .productCode)]
        var matched = plain
        matched.identityObjects = [IdentityObject(object: .productCode, match: "^P")]
        let hashes = Set([plain, named, matched].map { CompiledPage($0).hash })
        XCTAssertEqual(hashes.count, 3)
        // The hash of a page without objects is what it was before objects existed (a golden value).
        XCTAssertEqual(CompiledPage(plain).hash, CompiledPage(PageDefinition(id: "p", registers: plain.registers)).hash)
    }

    func testTheCheckOfEachObject() {
        let recorded = IdentityObject(object: .productCode).recorded(
            IdentificationObject(id: .productCode, value: Array("PRS-200".utf8)))
        XCTAssertEqual(recorded.registerId, "fc43:ProductCode")
        XCTAssertEqual(recorded.valueData, "5052532D323030")
        XCTAssertEqual(recorded.value, .text("PRS-200"))
        let lowerCase = RecordedValue(
            registerId: "fc43:ProductCode", address: 1, valueData: "5052532d323030", value: .text("PRS-200"))
        func found(_ text: String, _ id: IdentificationObjectId = .productCode) -> IdentificationObject {
            IdentificationObject(id: id, value: Array(text.utf8))
        }
        let revision = IdentityObject(object: .majorMinorRevision, match: #"^3\."#)
        let cases: [(String, IdentityObject, RecordedValue?, IdentificationObject?, Bool, String?)] = [
            ("same product", IdentityObject(object: .productCode), recorded, found("PRS-200"), true, nil),
            ("hex spelt in lower case", IdentityObject(object: .productCode), lowerCase, found("PRS-200"), true, nil),
            (
                "another product", IdentityObject(object: .productCode), recorded, found("PRS-300"), false,
                #"expected "PRS-200", target has "PRS-300""#
            ),
            (
                "object missing", IdentityObject(object: .productCode), recorded, nil, false,
                "the target has no identification object ProductCode"
            ),
            (
                "nothing recorded", IdentityObject(object: .productCode), nil, found("PRS-200"), false,
                "the template recorded no value for it"
            ),
            ("revision matches", revision, nil, found("3.2.0", .majorMinorRevision), true, nil),
            ("revision 4", revision, nil, found("4.0.0", .majorMinorRevision), false, #""4.0.0" does not match "^3\.""#),
            ("revision 13 is no 3.x", revision, nil, found("13.0", .majorMinorRevision), false, #""13.0" does not match "^3\.""#),
        ]
        for (name, object, recorded, actual, matches, message) in cases {
            let check = object.check(recorded: recorded, actual: actual)
            XCTAssertEqual(check.matches, matches, name)
            XCTAssertEqual(check.message, message, name)
            XCTAssertEqual(check.registerId, object.recordedId, name)
        }
    }
}
