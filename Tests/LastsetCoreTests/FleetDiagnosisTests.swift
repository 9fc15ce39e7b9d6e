import Foundation
import LastsetCore
import XCTest

/// The doctor's verdict and safe repairs, and a re-clone's judgment of this host's own files on the hub.
final class FleetDiagnosisTests: XCTestCase {
    func testTheVerdictAndTheSafeRepairs() {
        let cases: [(repositoryOK: Bool, answered: Bool, refused: Bool, FleetVerdict, [FleetRepairWay])] = [
            (true, true, false, .healthy, []),
            (true, true, true, .hubRefused, [.quarantine]),
            (true, false, false, .hubOffline, []),
            (true, false, true, .hubOffline, []),
            (false, true, false, .repositoryBroken, [.reclone]),
            // Re-cloning from a hub a fetch refuses would be refused too; quarantining needs a sound repository.
            (false, true, true, .repositoryBroken, []),
            (false, false, false, .repositoryBroken, []),
        ]
        for c in cases {
            let (verdict, repairs) = FleetVerdict.decide(repositoryOK: c.repositoryOK, hubAnswered: c.answered, hubRefused: c.refused)
            XCTAssertEqual(verdict, c.3, "\(c)")
            XCTAssertEqual(repairs, c.4, "\(c)")
        }
    }

    func testAProblemNamesItsCommitFileAndRule() {
        let p = FleetProblem(
            commit: "0123456789abcdef0123456789abcdef01234567", commitSummary: "test: tune heating",
            path: "templates/heating/v000001@line-a@20261201T105500.123Z.json", rule: .rewritten,
            reason: "version line-a-1 rewritten: a version id never changes meaning")
        XCTAssertEqual(
            p.description,
            "commit 0123456789ab (test: tune heating): templates/heating/v000001@line-a@20261201T105500.123Z.json: version line-a-1 rewritten: a version id never changes meaning [rewritten]"
        )
        let signature = FleetProblem(
            commit: "0123456789abcdef0123456789abcdef01234567", commitSummary: nil,
            path: "commit 0123456789abcdef0123456789abcdef01234567", rule: .signature, reason: "not signed (requireSigned)")
        XCTAssertEqual(signature.description, "commit 0123456789ab: not signed (requireSigned) [signature]")
    }

    func testAReclonesOwnFileIsAcceptedOnlyWhenItIsWhatThisHostWrote() {
        let mine = Data("v1\n".utf8)
        let other = Data("v1 edited\n".utf8)
        let path = "templates/heating/v000001@line-a@20261201T105500.123Z.json"
        typealias Case = (hub: Data, evidence: [(Data, FleetOwnFile.Source)], appendOnly: Bool, neverMade: Bool, expected: String)
        let cases: [Case] = [
            (mine, [(mine, .archive)], false, false, "matches archive"),
            (other, [(mine, .archive), (other, .oldRepository)], false, false, "refused archive"),
            (mine, [(mine, .oldRepository)], false, false, "matches old repository"),
            (mine, [], false, false, "unchecked"),
            (mine, [], false, true, "refused never made"),
            (mine, [(mine, .auditLog)], false, false, "matches audit log"),
            // The audit file: the hub may lack records not pushed yet, never hold others.
            (Data("a\n".utf8), [(Data("a\nb\n".utf8), .oldRepository)], true, false, "matches old repository"),
            (Data("a\nb\n".utf8), [(Data("a\n".utf8), .oldRepository)], true, false, "refused prefix"),
            (Data("a\n".utf8), [(Data("a\nb\n".utf8), .oldRepository)], false, false, "refused old repository"),
        ]
        for c in cases {
            let verdict = FleetOwnFile.judge(
                path: path, hub: c.hub, evidence: c.evidence, appendOnly: c.appendOnly, neverMade: c.neverMade)
            switch verdict {
            case .matches(let source): XCTAssertEqual("matches \(source.rawValue)", c.expected)
            case .unchecked(let note):
                XCTAssertEqual("unchecked", c.expected)
                XCTAssertTrue(note.hasPrefix(path), note)
            case .refused(let refusal):
                XCTAssertEqual(refusal.rule, .ownNamespace)
                XCTAssertEqual(refusal.path, path)
                let why = c.expected.dropFirst("refused ".count)
                XCTAssertTrue(
                    c.expected.hasPrefix("refused ")
                        && (refusal.reason.contains(why) || (why == "prefix" && refusal.reason.contains("not a prefix"))),
                    "\(c.expected): \(refusal.reason)")
            }
        }
    }

    func testARecloneCollectsThisHostsOwnFilesInsteadOfRefusingThem() {
        let zero = String(repeating: "0", count: 40)
        func added(_ path: String) -> FleetChange {
            FleetChange(status: "A", oldMode: "000000", newMode: "100644", oldBlob: zero, newBlob: zero, path: path)
        }
        let own = [
            added("templates/heating/v000001@line-7@20261201T105500.123Z.json"), added("audit/line-7.jsonl"),
            added("history/heating/delete@line-1-2@line-7.json"),
        ]
        let others = [added("templates/heating/v000001@line-1@20261201T105500.123Z.json"), added("audit/line-1.jsonl")]
        let plain = IncomingChanges(changes: own + others, localHost: "line-7")
        XCTAssertEqual(plain.refusals.map(\.rule), [.ownNamespace, .ownNamespace, .ownNamespace])
        XCTAssertTrue(plain.ownChanges.isEmpty)
        let reclone = IncomingChanges(changes: own + others, localHost: "line-7", ownFiles: true)
        XCTAssertEqual(reclone.refusals, [])
        XCTAssertEqual(reclone.ownChanges.map(\.change.path), own.map(\.path))
        XCTAssertEqual(reclone.templates, ["heating/line-1-1"])
        XCTAssertEqual(reclone.auditChanges.map(\.path), ["audit/line-1.jsonl"])
        // A rewrite of an own file is never collected: it is refused as ever.
        var rewritten = own[0]
        rewritten.status = "M"
        XCTAssertEqual(IncomingChanges(changes: [rewritten], localHost: "line-7", ownFiles: true).refusals.map(\.rule), [.ownNamespace])
    }
}
