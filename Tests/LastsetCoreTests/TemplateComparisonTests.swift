import Foundation
import LastsetCore
import XCTest

/// Template comparisons: what makes a capture "the same as the latest", and a version diff.
final class TemplateComparisonTests: XCTestCase {
    static func entry(_ id: String, _ address: Int, _ hex: String, _ byteOrder: ByteOrder? = nil) -> TemplateEntry {
        TemplateEntry(
            registerId: id, address: address, length: hex.count / 4, valueData: hex,
            value: .unsigned(UInt64(hex, radix: 16) ?? 0), lastDate: Date(timeIntervalSince1970: 0),
            layout: byteOrder.map { EntryLayout(type: .u16, wordOrder: nil, byteOrder: $0, unset: [[0xFFFF]]) })
    }

    static func template(_ version: Int, _ entries: [TemplateEntry], hash: String = "h", model: String = "50") -> Template {
        Template(
            pageId: "p", pageHash: hash, version: version, capturedAt: Date(timeIntervalSince1970: Double(version)),
            capturedBy: "uid:\(version)",
            source: TemplateSource(
                deviceId: "dev\(version)", endpoint: "tcp://x:\(version)", unit: 1,
                identity: [RecordedValue(registerId: "model", address: 0, valueData: model, value: .unsigned(0x50))]),
            entries: entries, skipped: [])
    }

    func testSameContent() {
        let base = Self.template(1, [Self.entry("a", 1, "0001"), Self.entry("b", 2, "0002", .big)])
        var skipped = Self.template(2, base.entries)
        skipped.skipped = [SkippedRegister(registerId: "c", address: 3, reason: .unset)]
        let cases: [(String, Template, Bool)] = [
            ("other times, who and source device", Self.template(2, base.entries), true),
            ("hex case", Self.template(2, [Self.entry("a", 1, "0001"), Self.entry("b", 2, "0002".uppercased())]), true),
            ("a value differs", Self.template(2, [Self.entry("a", 1, "0001"), Self.entry("b", 2, "0003")]), false),
            ("an entry fewer", Self.template(2, [Self.entry("a", 1, "0001")]), false),
            ("another order", Self.template(2, base.entries.reversed()), false),
            ("another page definition", Self.template(2, base.entries, hash: "h2"), false),
            ("another identity", Self.template(2, base.entries, model: "51"), false),
            ("other skipped registers", skipped, false),
            (
                "another recorded layout", Self.template(2, [Self.entry("a", 1, "0001"), Self.entry("b", 2, "0002", .little)]),
                false
            ),
            ("the same recorded layout", Self.template(2, [Self.entry("a", 1, "0001"), Self.entry("b", 2, "0002", .big)]), true),
        ]
        for (name, capture, want) in cases {
            XCTAssertEqual(TemplateComparison.sameContent(capture, as: base), want, name)
        }
    }

    func testDiff() {
        let old = Self.template(1, [Self.entry("a", 1, "0001"), Self.entry("b", 2, "0002"), Self.entry("c", 3, "0003")])
        let new = Self.template(2, [Self.entry("a", 1, "0001"), Self.entry("b", 2, "0009"), Self.entry("d", 4, "0004")])
        let d = TemplateComparison.diff(new, against: old)
        XCTAssertEqual(d.version, "2")
        XCTAssertEqual(d.against, "1")
        XCTAssertEqual(d.added.map(\.registerId), ["d"])
        XCTAssertEqual(d.removed.map(\.registerId), ["c"])
        XCTAssertEqual(d.changed.map { "\($0.registerId) \($0.from.valueData)→\($0.to.valueData)" }, ["b 0002→0009"])
        XCTAssertEqual(d.unchanged, 1)
        XCTAssertTrue(d.samePageHash && d.sameIdentity)
        XCTAssertFalse(d.isEmpty)
        XCTAssertTrue(TemplateComparison.diff(old, against: old).isEmpty)
    }
}
