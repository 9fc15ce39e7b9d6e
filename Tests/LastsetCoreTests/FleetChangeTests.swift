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
        let cases: [(FleetChange, String?)] = [
            (change("A", "templates/heating/\(file)"), nil),
            (change("A", "audit/line-1.jsonl"), nil),
            (change("M", "audit/line-1.jsonl"), nil),
            (change("A", "README.md"), nil),
            (change("M", "templates/heating/\(file)"), "rewritten"),
            (change("D", "templates/heating/\(file)"), "deleted"),
            (change("A", "templates/heating/\(file)", mode: "120000"), "only regular files"),
            (change("A", "templates/heating/v000002.json"), "not the name of a fleet template version"),
            (change("A", "templates/heating/sub/\(file)"), "not templates/<page>/<version file>"),
            (change("A", "templates/heating/\(file.replacingOccurrences(of: "line-1", with: "line-7"))"), "this host's"),
            (change("M", "audit/line-7.jsonl"), "this host's"),
            (change("D", "audit/line-1.jsonl"), "deleted"),
            (change("A", "audit/x/line-1.jsonl"), "not audit/<host>.jsonl"),
        ]
        for (c, refusal) in cases {
            switch c.classify(localHost: "line-7") {
            case .success(let kind):
                XCTAssertNil(refusal, "\(c.path) accepted as \(kind)")
            case .failure(let r):
                XCTAssertTrue(r.reason.contains(refusal ?? "<accepted>"), "\(c.status) \(c.path): \(r.reason)")
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
}
