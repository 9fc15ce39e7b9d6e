import Foundation
import LastsetCore
import XCTest

/// `UnfinishedIntents.outcomes`: what the import into `lastset.db` records for an intent the release before it
/// left without its outcome (issue 20).
final class UnfinishedIntentsTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    private let model = [RecordedValue(registerId: "model", address: 0, valueData: "4142", value: .text("AB"))]

    private func version(
        _ n: Int, page: String = "heating", endpoint: String = "tcp://127.0.0.1:1", identity: [RecordedValue]? = nil,
        hash: String = "sha256:a", capturedAt: TimeInterval = 0, provenance: String? = nil
    ) -> Template {
        Template(
            pageId: page, pageHash: hash, version: n, capturedAt: t0.addingTimeInterval(capturedAt), capturedBy: "uid:0",
            source: TemplateSource(deviceId: "press-a", endpoint: endpoint, unit: 1, identity: identity ?? model),
            entries: [
                TemplateEntry(registerId: "r", address: 1, length: 1, valueData: "0007", value: .unsigned(7), lastDate: t0)
            ], skipped: [], provenance: provenance)
    }

    private func intent(
        _ kind: AuditKind, job: String, page: String = "heating", at: TimeInterval = 1, endpoint: String = "tcp://127.0.0.1:1",
        hash: String = "sha256:a", version: String? = nil
    ) -> AuditRecord {
        AuditRecord(
            time: t0.addingTimeInterval(at), kind: kind, who: "uid:7", pageId: page, device: "press-a", endpoint: endpoint,
            unit: 1, identity: kind == .delete ? [] : model, templateVersion: version.flatMap(Int.init), pageHash: hash,
            result: .started, message: "intent", registers: [], job: job, templateVersionId: version)
    }

    func testEachUnfinishedIntentGetsTheOutcomeTheArchiveShows() {
        let cases:
            [(
                String, intents: [AuditRecord], unrecorded: [Template], archived: Set<String>,
                expected: [(job: String, result: AuditResult, version: String?)]
            )] = [
                (
                    "a capture stopped after its version: archived as that version",
                    [intent(.capture, job: "c")], [version(2)], [], [("c", .archived, "2")]
                ),
                (
                    "a capture stopped before its version: failed, nothing archived",
                    [intent(.capture, job: "c")], [], [], [("c", .failed, nil)]
                ),
                (
                    "a version captured after the intent is not its",
                    [intent(.capture, job: "c", at: 1)], [version(2, capturedAt: 5)], [], [("c", .failed, nil)]
                ),
                (
                    "another device's version is not its",
                    [intent(.capture, job: "c")], [version(2, endpoint: "tcp://127.0.0.1:2")], [], [("c", .failed, nil)]
                ),
                (
                    "another identity's version is not its",
                    [intent(.capture, job: "c")], [version(2, identity: [])], [], [("c", .failed, nil)]
                ),
                (
                    "another page definition's version is not its",
                    [intent(.capture, job: "c")], [version(2, hash: "sha256:b")], [], [("c", .failed, nil)]
                ),
                (
                    "another page's version is not its",
                    [intent(.capture, job: "c")], [version(2, page: "motion")], [], [("c", .failed, nil)]
                ),
                (
                    "two intents, two versions: oldest intent, lowest number, each version once",
                    [intent(.capture, job: "late", at: 3), intent(.capture, job: "early", at: 1)], [version(5), version(4)], [],
                    [("early", .archived, "4"), ("late", .archived, "5")]
                ),
                (
                    "two intents, one version: the second gets none",
                    [intent(.capture, job: "a", at: 1), intent(.capture, job: "b", at: 2)], [version(4)], [],
                    [("a", .archived, "4"), ("b", .failed, nil)]
                ),
                (
                    "an import: the same rule",
                    [intent(.import, job: "i")], [version(3)], [], [("i", .archived, "3")]
                ),
                (
                    "a promote: the copy of the version it named",
                    [intent(.promote, job: "p", version: "1")],
                    [version(3, provenance: "promoted from version 2 (captured …)"), version(4, provenance: "promoted from version 1 (captured …)")],
                    [], [("p", .archived, "4")]
                ),
                (
                    "a promote without its copy: failed",
                    [intent(.promote, job: "p", version: "1")], [version(3)], [], [("p", .failed, "1")]
                ),
                (
                    "a promote's copy is not a capture's",
                    [intent(.capture, job: "c", at: 1)], [version(4, capturedAt: 0, provenance: "promoted from version 1 (x)")],
                    [], [("c", .failed, nil)]
                ),
                (
                    "a delete whose version is gone: deleted",
                    [intent(.delete, job: "d", version: "3")], [], ["heating\u{0}1"], [("d", .deleted, "3")]
                ),
                (
                    "a delete whose version is still there: failed",
                    [intent(.delete, job: "d", version: "3")], [], ["heating\u{0}3"], [("d", .failed, "3")]
                ),
                (
                    "replay and dry-run intents are the journals' (start-up recovery)",
                    [intent(.replay, job: "r"), intent(.dryRun, job: "y")], [version(2)], [], []
                ),
            ]
        for (name, intents, unrecorded, archived, expected) in cases {
            let out = UnfinishedIntents.outcomes(
                of: intents, unrecorded: unrecorded, isArchived: { archived.contains($0 + "\u{0}" + $1) })
            XCTAssertEqual(out.map(\.job), expected.map(\.job), name)
            XCTAssertEqual(out.map(\.result), expected.map(\.result), name)
            XCTAssertEqual(out.map(\.templateVersionId), expected.map(\.version), name)
            for o in out {
                XCTAssertTrue(o.message?.contains(UnfinishedIntents.note) ?? false, "\(name): \(o.message ?? "nil")")
                XCTAssertEqual(o.who, "uid:7", name)
                XCTAssertEqual(o.time, intents.first { $0.job == o.job }?.time, "\(name): the intent's time")
                if o.result == .archived { XCTAssertEqual(o.registers.count, 1, name) }
            }
        }
    }
}
