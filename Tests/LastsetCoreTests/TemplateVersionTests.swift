import Foundation
import LastsetCore
import XCTest

final class TemplateVersionTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_764_586_500.123)

    func testFileNamesRoundTripAndForeignNamesAreNotVersions() {
        let cases: [(String, TemplateVersion?)] = [
            ("v000003.json", TemplateVersion(number: 3)),
            ("v1234567.json", TemplateVersion(number: 1_234_567)),
            ("v000003@line-7@20251201T105500.123Z.json", TemplateVersion(number: 3, host: "line-7", archivedAt: t0)),
            ("v000003@a.b_c@20251201T105500.123Z.json", TemplateVersion(number: 3, host: "a.b_c", archivedAt: t0)),
            ("v3.json", nil),  // not the spelling we write
            ("v0000003.json", nil),
            ("v000000.json", nil),
            ("v000003@line-7.json", nil),
            ("v000003@../x@20251201T105500.123Z.json", nil),
            ("v000003@line-7@2025-12-01T10:55:00.123Z.json", nil),
            ("v000003@line-7@20251301T105500.123Z.json", nil),
            (".tmp-v000003.json-1a2b", nil),
            ("v000003.json.bak", nil),
        ]
        for (name, expected) in cases {
            XCTAssertEqual(TemplateVersion.parse(fileName: name), expected, name)
            if let expected { XCTAssertEqual(expected.fileName, name) }
        }
    }

    func testIdsAndReferences() {
        XCTAssertEqual(TemplateVersion(number: 3).id, "3")
        XCTAssertEqual(TemplateVersion(number: 3, host: "line-7", archivedAt: t0).id, "line-7-3")
        let refs: [(String, TemplateVersionRef?)] = [
            ("latest", .latest), ("3", .number(3)), ("line-7-3", .id(host: "line-7", number: 3)),
            ("7-3", .id(host: "7", number: 3)),
            ("0", nil), ("-3", nil), ("line-7-", nil), ("line-7-x", nil), ("../a-1", nil), ("+3", nil), ("", nil),
        ]
        for (text, expected) in refs { XCTAssertEqual(TemplateVersionRef.parse(text), expected, text) }
        let own = TemplateVersion(number: 3, host: "line-7", archivedAt: t0)
        XCTAssertTrue(TemplateVersionRef.number(3).names(own, localHost: "line-7"))
        XCTAssertFalse(TemplateVersionRef.number(3).names(own, localHost: "line-1"))
        XCTAssertTrue(TemplateVersionRef.id(host: "line-7", number: 3).names(own, localHost: "line-1"))
        XCTAssertTrue(TemplateVersionRef.number(3).names(TemplateVersion(number: 3), localHost: nil))
    }

    func testReferencesDecodeFromNumbersAndStrings() throws {
        let decoder = JSONDecoder()
        XCTAssertEqual(
            try decoder.decode([TemplateVersionRef].self, from: Data(#"[3,"4","a-5","latest"]"#.utf8)),
            [.number(3), .number(4), .id(host: "a", number: 5), .latest])
        XCTAssertThrowsError(try decoder.decode([TemplateVersionRef].self, from: Data("[0]".utf8)))
        XCTAssertThrowsError(try decoder.decode([TemplateVersionRef].self, from: Data(#"["v3"]"#.utf8)))
        XCTAssertEqual(
            String(decoding: try JSONEncoder().encode([TemplateVersionRef.number(3), .id(host: "a", number: 5)]), as: UTF8.self),
            #"[3,"a-5"]"#)
    }

    func testFleetOrderIsByArchiveTimeThenHostThenNumber() {
        let later = t0.addingTimeInterval(1)
        let unordered = [
            TemplateVersion(number: 9, host: "b", archivedAt: t0),
            TemplateVersion(number: 1, host: "a", archivedAt: later),
            TemplateVersion(number: 2),
            TemplateVersion(number: 4, host: "a", archivedAt: t0),
            TemplateVersion(number: 1),
        ]
        XCTAssertEqual(unordered.sorted().map(\.id), ["1", "2", "a-4", "b-9", "a-1"])
    }
}
