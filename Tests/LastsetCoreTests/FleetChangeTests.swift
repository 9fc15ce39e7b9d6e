import Foundation
import LastsetCore
import XCTest

final class FleetChangeTests: XCTestCase {
    private let file = "v000002@line-1@20251201T105500.123Z.json"

    private func change(_ status: Character, _ path: String, mode: String = "100644") -> FleetChange {
        FleetChange(
            status: status, oldMode: status == "A" ? "000000" : "100644", newMode: status == "D" ? "000000" : mode,
            oldBlob: String(repeating: "0", count: 40), newBlob: String(repeating: "1", count: 40), path: path)
    }

    func testIncomingChangesAreClassifiedOrRefused() {
        let cases: [(FleetChange, String?, FleetRule?)] = [
            (change("A", "templates/heating/\(file)"), nil, nil),
            (change("A", "audit/line-1.jsonl"), nil, nil),
            (change("M", "audit/line-1.jsonl"), nil, nil),
            (change("A", "README.md"), nil, nil),
            (change("M", "templates/heating/\(file)"), "rewritten", .rewritten),
            (change("D", "templates/heating/\(file)"), "deleted", .removed),
            (change("A", "templates/heating/\(file)", mode: "120000"), "only regular files", .regularFile),
            (change("A", "templates/heating/v000002.json"), "not the name of a fleet template version", .name),
            (change("A", "templates/heating/sub/\(file)"), "not templates/<page>/<version file>", .layout),
            (change("A", "templates/heating/\(file.replacingOccurrences(of: "line-1", with: "line-7"))"), "this host's", .ownNamespace),
            (change("M", "audit/line-7.jsonl"), "this host's", .ownNamespace),
            (change("D", "audit/line-1.jsonl"), "deleted", .removed),
            (change("A", "audit/x/line-1.jsonl"), "not audit/<host>.jsonl", .layout),
            (change("A", "history/heating/delete@line-7-2@line-1.json"), nil, nil),
            (change("A", "history/heating/promote@line-1-4@line-1.json"), nil, nil),
            (change("A", "history/heating/delete@line-1-2@line-7.json"), "this host's", .ownNamespace),
            (change("M", "history/heating/delete@line-7-2@line-1.json"), "rewritten", .rewritten),
            (change("D", "history/heating/delete@line-7-2@line-1.json"), "removed", .removed),
            (change("A", "history/heating/delete@line-7-2@line-1.json", mode: "120000"), "only regular files", .regularFile),
            (change("A", "history/heating/promote@line-7-4@line-1.json"), "not the name of a fleet record", .name),
            (change("A", "history/heating/rename@line-7-2@line-1.json"), "not the name of a fleet record", .name),
            (change("A", "history/heating/delete@3@line-1.json"), "not the name of a fleet record", .name),
            (change("A", "history/delete@line-7-2@line-1.json"), "not history/<page>/<record file>", .layout),
            (change("A", "pages/heating/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef@line-1.json"), nil, nil),
            (change("A", "pages/heating/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef@line-7.json"), "this host's", .ownNamespace),
            (change("M", "pages/heating/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef@line-1.json"), "rewritten", .rewritten),
            (change("D", "pages/heating/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef@line-1.json"), "removed", .removed),
            (change("A", "pages/heating/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef@line-1.json", mode: "120000"), "only regular files", .regularFile),
            (change("A", "pages/heating/0123456789@line-1.json"), "not the name of a page definition", .name),
            (change("A", "pages/heating.json"), "not pages/<page>/<definition file>", .layout),
        ]
        for (c, refusal, rule) in cases {
            switch c.classify(localHost: "line-7") {
            case .success(let kind):
                XCTAssertNil(refusal, "\(c.path) accepted as \(kind)")
            case .failure(let r):
                XCTAssertTrue(r.reason.contains(refusal ?? "<accepted>"), "\(c.status) \(c.path): \(r.reason)")
                XCTAssertEqual(r.rule, rule, "\(c.status) \(c.path)")
            }
        }
    }

    func testRawDiffParses() {
        let zero = String(repeating: "0", count: 40)
        let a = String(repeating: "a", count: 40)
        let b = String(repeating: "b", count: 40)
        let c = String(repeating: "c", count: 40)
        let first: String = ":000000 100644 \(zero) \(a) A\u{0}templates/heating/\(file)\u{0}"
        let second: String = ":100644 100644 \(b) \(c) M\u{0}audit/line-1.jsonl\u{0}"
        let raw = Data((first + second).utf8)
        let changes = FleetChange.parse(raw: raw)
        XCTAssertEqual(changes?.map { $0.path }, ["templates/heating/\(file)", "audit/line-1.jsonl"])
        XCTAssertEqual(changes?.map { $0.status }, ["A", "M"] as [Character])
        XCTAssertEqual(FleetChange.parse(raw: Data()), [])
        XCTAssertNil(FleetChange.parse(raw: Data("garbage\u{0}".utf8)))
    }

    func testRecordsAreNamedByWhatTheyHoldAndComeFromDeletesAndPromotes() throws {
        let at = Date(timeIntervalSince1970: 1_800_000_000.123)
        let tombstone = FleetRecord(
            kind: .delete, pageId: "heating", versionId: "line-a-2", host: "line-b", who: "uid:1000(op)", at: at,
            reason: "deleted version line-a-2: wrong burner")
        XCTAssertEqual(tombstone.path, "history/heating/delete@line-a-2@line-b.json")
        XCTAssertEqual(FleetRecord.Name.parse(fileName: tombstone.name.fileName), tombstone.name)
        XCTAssertEqual(tombstone.name.version?.host, "line-a")
        XCTAssertEqual(tombstone.name.version?.number, 2)
        XCTAssertEqual(
            try FleetRecord.decode(tombstone.encoded(), pageId: "heating", fileName: tombstone.name.fileName).get(), tombstone)
        let cases: [(Data, String, String, String)] = try [
            (tombstone.encoded(), "cooling", tombstone.name.fileName, "not its name"),
            (tombstone.encoded(), "heating", "delete@line-a-3@line-b.json", "not its name"),
            (Data("{}".utf8), "heating", tombstone.name.fileName, "not a fleet record"),
            // The decoder's reason is passed on: which field, and what is wrong with it.
            (
                Data(String(decoding: tombstone.encoded(), as: UTF8.self).replacingOccurrences(of: "\"who\":\"uid:1000(op)\"", with: "\"who\":5").utf8),
                "heating", tombstone.name.fileName, "not a fleet record (lastset-fleet-record): at .who: "
            ),
            (
                Data(String(decoding: tombstone.encoded(), as: UTF8.self).replacingOccurrences(of: "\"lastset-fleet-record\"", with: "\"x\"").utf8),
                "heating", tombstone.name.fileName, "its format is \"x\""
            ),
            (
                FleetRecord(kind: .delete, pageId: "heating", versionId: "line-a-2", host: "line-b", who: "", at: at, reason: "r")
                    .encoded(), "heating", tombstone.name.fileName, "who and why"
            ),
        ]
        for (data, page, name, refusal) in cases {
            switch FleetRecord.decode(data, pageId: page, fileName: name) {
            case .success: XCTFail("accepted \(page)/\(name)")
            case .failure(let r): XCTAssertTrue(r.reason.contains(refusal), "\(r.reason) lacks \(refusal)")
            }
        }
        func audit(_ kind: AuditKind, _ result: AuditResult, _ id: String?) -> AuditRecord {
            AuditRecord(
                time: at, kind: kind, who: "uid:1000(op)", pageId: "heating", device: "-", endpoint: "-", unit: 0, identity: [],
                templateVersion: 2, pageHash: "", result: result, message: "why", registers: [], job: "j",
                templateVersionId: id)
        }
        XCTAssertEqual(FleetRecord.from(audit(.delete, .deleted, "line-a-2"), host: "line-b")?.path, tombstone.path)
        XCTAssertEqual(
            FleetRecord.from(audit(.promote, .archived, "line-b-5"), host: "line-b")?.path,
            "history/heating/promote@line-b-5@line-b.json")
        XCTAssertNil(FleetRecord.from(audit(.promote, .archived, "line-a-5"), host: "line-b"))
        XCTAssertNil(FleetRecord.from(audit(.delete, .failed, "line-a-2"), host: "line-b"))
        XCTAssertNil(FleetRecord.from(audit(.delete, .started, "line-a-2"), host: "line-b"))
        XCTAssertNil(FleetRecord.from(audit(.delete, .deleted, "2"), host: "line-b"), "a delete from before the fleet")
        XCTAssertNil(FleetRecord.from(audit(.capture, .archived, "line-b-5"), host: "line-b"))
    }
}
