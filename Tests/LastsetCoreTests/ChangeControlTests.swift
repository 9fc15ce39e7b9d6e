import Foundation
import XCTest

@testable import LastsetCore

/// Four-eyes change control's rules (docs/CHANGE-CONTROL.md), table-driven: what is protected, who may sign, when
/// a request may be applied, what an apply's hash makes of it, the reason rule, and the hash itself.
final class ChangeControlTests: XCTestCase {
    static let page = CompiledPage(
        PageDefinition(
            id: "grid",
            registers: [
                RegisterDefinition(registerId: "grid.limit", address: 10, type: .u16),
                RegisterDefinition(registerId: "grid.ramp", address: 11, type: .u16),
            ]))

    func testProtection() {
        let rows: [(String, ChangeControlConfig?, String?)] = [
            ("no section", nil, nil),
            ("another page", ChangeControlConfig(protectedPages: ["heating"]), nil),
            ("the page", ChangeControlConfig(protectedPages: ["grid"]), "page \"grid\" is protected"),
            ("one of its registers", ChangeControlConfig(protectedRegisters: ["grid.ramp", "x"]),
             "page \"grid\" holds protected register grid.ramp"),
            ("reason only", ChangeControlConfig(reasonRequired: true), nil),
        ]
        for (name, config, want) in rows { XCTAssertEqual(ChangeControl.protection(of: Self.page, config), want, name) }
    }

    func testTheReasonRule() {
        let required = ChangeControlConfig(reasonRequired: true)
        XCTAssertNil(ChangeControl.reasonRefusal(nil, nil))
        XCTAssertNil(ChangeControl.reasonRefusal(nil, ChangeControlConfig()))
        XCTAssertEqual(ChangeControl.reasonRefusal(nil, required), .reasonRequired)
        XCTAssertEqual(ChangeControl.reasonRefusal("  \n", required), .reasonRequired)
        XCTAssertNil(ChangeControl.reasonRefusal("new grid code", required))
    }

    static func request(_ state: ChangeState = .open, approvals: [Approval] = []) -> ChangeRequest {
        ChangeRequest(
            id: "r1", pageId: "grid", device: "m0", versionId: "1", hash: "sha256:aa",
            requested: Approval(who: "token:ann", time: Date(), meaning: .authorship, reason: "grid code 2027"), state: state,
            approvals: approvals, plan: .placeholder)
    }

    static func sig(_ who: String, _ meaning: SignatureMeaning) -> Approval {
        Approval(who: who, time: Date(), meaning: meaning, reason: "checked")
    }

    func testWhoMaySign() {
        let rows: [(String, ChangeRequest, String, SignatureMeaning, String, ChangeRefusal?)] = [
            ("another person approves", Self.request(), "token:bob", .approval, "ok", nil),
            ("another person reviews", Self.request(), "token:bob", .review, "ok", nil),
            ("never the requester", Self.request(), "token:ann", .approval, "ok", .ownRequest),
            ("not even as a review", Self.request(), "token:ann", .review, "ok", .ownRequest),
            ("authorship is no signature", Self.request(), "token:bob", .authorship, "ok", .meaningNotASignature),
            ("once per meaning", Self.request(.approved, approvals: [Self.sig("token:bob", .approval)]), "token:bob", .approval,
             "ok", .alreadySigned),
            ("a second meaning is fine", Self.request(.approved, approvals: [Self.sig("token:bob", .approval)]), "token:bob",
             .responsibility, "ok", nil),
            ("a reason is required", Self.request(), "token:bob", .approval, " ", .reasonRequired),
            ("applied is closed", Self.request(.applied), "token:bob", .approval, "ok", .closed(.applied)),
            ("stale is closed", Self.request(.stale), "token:bob", .approval, "ok", .closed(.stale)),
        ]
        for (name, request, who, meaning, reason, want) in rows {
            XCTAssertEqual(ChangeControl.signatureRefusal(request, by: who, meaning: meaning, reason: reason), want, name)
        }
        XCTAssertEqual(ChangeControl.state(of: Self.request(), after: Self.sig("token:bob", .approval)), .approved)
        XCTAssertEqual(ChangeControl.state(of: Self.request(), after: Self.sig("token:bob", .review)), .open)
    }

    func testWhenARequestMayBeApplied() {
        let approved = [Self.sig("token:bob", .approval)]
        let rows: [(String, ChangeRequest, ChangeRefusal?)] = [
            ("open", Self.request(), .notApproved),
            ("reviewed only", Self.request(approvals: [Self.sig("token:bob", .review)]), .notApproved),
            ("approved by another", Self.request(.approved, approvals: approved), nil),
            ("approved state without an approval by another (never made so; refused all the same)",
             Self.request(.approved, approvals: [Self.sig("token:ann", .approval)]), .notApproved),
            ("applied", Self.request(.applied, approvals: approved), .closed(.applied)),
            ("stale", Self.request(.stale, approvals: approved), .closed(.stale)),
        ]
        for (name, request, want) in rows { XCTAssertEqual(ChangeControl.applyRefusal(request), want, name) }
    }

    func testWhatAnApplyMakesOfTheRequest() {
        let r = Self.request(.approved, approvals: [Self.sig("token:bob", .approval)])
        let rows: [(String, String?, ReplayStatus, ChangeState)] = [
            ("the hash reproduced and written", "sha256:aa", .succeeded, .applied),
            ("the hash reproduced, a register failed", "sha256:aa", .failed, .applied),
            ("another hash: stale", "sha256:bb", .refused, .stale),
            ("refused before hashing (identity): may be tried again", nil, .refused, .approved),
        ]
        for (name, hash, status, want) in rows {
            XCTAssertEqual(ChangeControl.state(afterApplyHashing: hash, status: status, of: r), want, name)
        }
    }

    func testTheHashCoversIdentityAsFoundValuesVersionAndPlan() {
        func subject(
            device: String = "m0", identity: String? = "PRS-7", asFound: String? = "0001", expected: String = "1068",
            version: String = "1", plan: [PlannedRequest] = [PlannedRequest(function: .fc16, address: 10, count: 1, registerIds: ["a"])]
        ) -> ChangeHash.Subject {
            ChangeHash.Subject(
                device: device, endpoint: "tcp://127.0.0.1:1502", unit: 1, pageId: "grid", pageHash: "sha256:p",
                versionId: version, identity: [("model", identity)],
                registers: [ChangeHash.Register(registerId: "a", address: 10, expectedData: expected, asFoundData: asFound)],
                plan: plan)
        }
        let base = ChangeHash.of(subject())
        XCTAssertTrue(base.hasPrefix("sha256:") && base.count == 71)
        XCTAssertEqual(ChangeHash.of(subject()), base, "the same inputs, the same hash")
        XCTAssertEqual(ChangeHash.of(subject(asFound: "0001".lowercased())), base, "hex case is not a change")
        let changed = [
            ChangeHash.of(subject(device: "m1")), ChangeHash.of(subject(identity: "PRS-8")), ChangeHash.of(subject(identity: nil)),
            ChangeHash.of(subject(asFound: "0002")), ChangeHash.of(subject(asFound: nil)), ChangeHash.of(subject(expected: "1069")),
            ChangeHash.of(subject(version: "2")),
            ChangeHash.of(subject(plan: [PlannedRequest(function: .fc06, address: 10, count: 1, registerIds: ["a"])])),
        ]
        XCTAssertFalse(changed.contains(base))
        XCTAssertEqual(Set(changed).count, changed.count)
    }
}
