import Foundation
import LastsetCore
import XCTest

/// The replacement policy's config, the fingerprint plan and the one decision after a fingerprint poll
/// (`MachineRecognition.next`, `recheck`). Table-driven, no server.
final class MachineRecognitionTests: XCTestCase {
    static let known = MachineFingerprint(model: ["model": "00C8"], instance: ["serial": "0001E240"])
    static let other = MachineFingerprint(model: ["model": "00C8"], instance: ["serial": "00000007"])
    static let parts = ["instance:serial", "model:model"]
    static let t0 = Date(timeIntervalSince1970: 1_000_000)
    static let t1 = t0.addingTimeInterval(10)

    static func config(_ device: String, pageIdentity: String = #"{ registerId: "model", address: 0, type: "u16" }"#)
        -> String
    {
        """
        { version: 1, devices: [ { id: "d", endpoint: "tcp://127.0.0.1:1502", unit: 1, pages: ["p"], \(device) } ],
          pages: [ { id: "p", identity: [ \(pageIdentity) ], registers: [ { registerId: "r", address: 10, type: "u16" } ] },
                   { id: "plain", registers: [ { registerId: "q", address: 20, type: "u16" } ] } ] }
        """
    }

    func testTheConfigKeysAreCheckedAndCompiled() throws {
        let text = Self.config(
            #"poll: "1s", replacement: "restore", serialNumber: [ { registerId: "serial", address: 2, type: "u32" }, { object: "0x80" } ]"#
        )
        let config = try CompiledConfig(try ConfigLoader.check(Data(text.utf8), file: "c.json"))
        let device = try XCTUnwrap(config.device("d"))
        XCTAssertEqual(device.replacement, .restore)
        let plan = FingerprintPlan(device: device, pages: config.pages(of: device))
        XCTAssertEqual(plan.modelRegisters.map(\.registerId), ["model"])
        XCTAssertEqual(plan.instanceRegisters.map(\.registerId), ["serial"])
        XCTAssertEqual(plan.instanceObjects.map(\.recordedId), ["fc43:0x80"])
        XCTAssertEqual(plan.parts, ["model:model", "instance:fc43:0x80", "instance:serial"])
        XCTAssertEqual(plan.identificationCategory, .extended)
        let unset = try CompiledConfig(try ConfigLoader.check(Data(Self.config(#"poll: "1s""#).utf8), file: "c.json"))
        XCTAssertEqual(unset.device("d")?.replacement, .off, "absent: off")

        let cases: [(String, String, String, String)] = [
            (
                "unknown policy", #"poll: "1s", replacement: "always""#, "devices[0].replacement",
                "must be one of: off, notify, restore"
            ),
            ("no poll", #"replacement: "notify""#, "devices[0].replacement", "needs a poll interval"),
            ("poll 0", #"poll: "0s", replacement: "restore""#, "devices[0].replacement", "needs a poll interval"),
            (
                "a match on a serial", #"poll: "1s", serialNumber: [ { object: "0x80", match: "^A" } ]"#,
                "devices[0].serialNumber[0].match", "no match"
            ),
            (
                "a bad register", #"poll: "1s", serialNumber: [ { registerId: "s", address: 70000, type: "u16" } ]"#,
                "devices[0].serialNumber[0].address", "beyond the last register"
            ),
        ]
        for (name, device, path, fragment) in cases {
            XCTAssertThrowsError(try ConfigLoader.check(Data(Self.config(device).utf8), file: "c.json"), name) { error in
                let problems = (error as? ConfigErrors)?.problems ?? []
                XCTAssertEqual(problems.map(\.path), [path], "\(name): \(error)")
                XCTAssertTrue(problems.contains { $0.message.contains(fragment) }, "\(name): \(problems)")
            }
        }
        let noIdentity = """
            { version: 1, devices: [ { id: "d", endpoint: "tcp://127.0.0.1:1502", unit: 1, pages: ["plain"], poll: "1s", replacement: "notify" } ],
              pages: [ { id: "plain", registers: [ { registerId: "q", address: 20, type: "u16" } ] } ] }
            """
        XCTAssertThrowsError(try ConfigLoader.check(Data(noIdentity.utf8), file: "c.json")) { error in
            XCTAssertTrue("\(error)".contains("needs a page with an identity"), "\(error)")
        }
    }

    func testTheFingerprintFromWhatWasRead() {
        let plan = FingerprintPlan(
            modelRegisters: [IdentityRegister(registerId: "model", address: 0, type: .u16)],
            modelObjects: [
                IdentityObject(object: .productCode), IdentityObject(object: .majorMinorRevision, match: #"^3\."#),
            ],
            instanceRegisters: [IdentityRegister(registerId: "serial", address: 1, type: .u32)], instanceObjects: [])
        let words: [Int: [UInt16]] = [0: [0x00C8], 1: [0x0001, 0xE240]]
        let read = { (span: AddressSpan) in words[span.address] }
        func identification(_ revision: String) -> DeviceIdentification {
            DeviceIdentification(
                conformity: ConformityLevel(category: .basic, individualAccess: false),
                objects: [
                    IdentificationObject(id: .productCode, value: Array("PRS-200".utf8)),
                    IdentificationObject(id: .majorMinorRevision, value: Array(revision.utf8)),
                ])
        }
        XCTAssertEqual(
            plan.fingerprint(words: read, identification: identification("3.1")),
            MachineFingerprint(
                model: ["model": "00C8", "fc43:ProductCode": "5052532D323030"], instance: ["serial": "0001E240"]))
        XCTAssertEqual(
            plan.fingerprint(words: read, identification: identification("4.0"))?.refusedRevisions, ["fc43:MajorMinorRevision"])
        XCTAssertNil(plan.fingerprint(words: read, identification: nil), "FC43 not read: unreadable")
        XCTAssertNil(plan.fingerprint(words: { $0.address == 0 ? [1] : nil }, identification: identification("3.1")))
        XCTAssertEqual(plan.spans.map(\.address), [0, 1])
    }

    static func page(_ id: String = "p", version: String? = "3", at: Date? = t0, marked: Bool = false, elsewhere: [String] = [])
        -> PageStanding
    {
        PageStanding(pageId: id, versionId: version, appliedAt: at, marked: marked, setElsewhere: elsewhere)
    }

    static func record(_ event: MachineEvent? = nil) -> MachineRecord {
        MachineRecord(known: known, parts: parts, knownSince: t0, event: event)
    }

    func testEachVerdictUnderEachPolicy() {
        let replaced = MachineVerdict.replaced(changed: ["serial"])
        let pending = MachineEvent(
            kind: .replaced, detail: ["serial"], fingerprint: Self.other, noticedAt: Self.t1, restore: .pending,
            restorePages: ["p"])
        var resetStarted = MachineEvent(
            kind: .factoryReset, detail: ["p"], fingerprint: Self.known, noticedAt: Self.t1, restore: .started,
            restorePages: ["p"])
        resetStarted.restoreJob = "j"
        let anotherModel = MachineEvent(
            kind: .anotherModel, detail: ["model"], fingerprint: Self.other, noticedAt: Self.t0,
            note: "never written to: another model")
        typealias Case = (
            String, MachineRecord, MachineFingerprint?, MachineVerdict, ReplacementPolicy, [PageStanding],
            MachineRecognition.Action
        )
        let cases: [Case] = [
            ("unreadable: nothing", Self.record(), nil, .unreadable, .restore, [Self.page()], .none),
            ("first seen: recorded", MachineRecord(), Self.known, .firstSeen, .restore, [Self.page()], .recorded),
            ("conforming, nothing open", Self.record(), Self.known, .sameAndConforming, .restore, [Self.page()], .none),
            ("replaced, restore", Self.record(), Self.other, replaced, .restore, [Self.page()], .restore(pending)),
            (
                "replaced, notify", Self.record(), Self.other, replaced, .notify, [Self.page()],
                .noticed(
                    MachineEvent(
                        kind: .replaced, detail: ["serial"], fingerprint: Self.other, noticedAt: Self.t1, restorePages: ["p"]))
            ),
            (
                "replaced, a value set elsewhere: withheld", Self.record(), Self.other, replaced, .restore,
                [Self.page(elsewhere: ["r"])],
                .noticed(
                    MachineEvent(
                        kind: .replaced, detail: ["serial"], fingerprint: Self.other, noticedAt: Self.t1, restore: .withheld,
                        restorePages: ["p"], note: "page p holds values set elsewhere: r"))
            ),
            (
                "replaced, a page marked: withheld", Self.record(), Self.other, replaced, .restore, [Self.page(marked: true)],
                .noticed(
                    MachineEvent(
                        kind: .replaced, detail: ["serial"], fingerprint: Self.other, noticedAt: Self.t1, restore: .withheld,
                        restorePages: ["p"], note: "page p is marked by an interrupted or failed replay"))
            ),
            (
                "replaced, nothing applied: nothing to restore", Self.record(), Self.other, replaced, .restore,
                [Self.page(version: nil, at: nil)],
                .noticed(
                    MachineEvent(
                        kind: .replaced, detail: ["serial"], fingerprint: Self.other, noticedAt: Self.t1,
                        note: "no page has a verified version to restore"))
            ),
            (
                "another model: never restored", Self.record(), Self.other, .anotherModel(differs: ["model"]), .restore,
                [Self.page()],
                .noticed(
                    MachineEvent(
                        kind: .anotherModel, detail: ["model"], fingerprint: Self.other, noticedAt: Self.t1,
                        note: "never written to: another model"))
            ),
            (
                "factory reset, restore", Self.record(), Self.known, .factoryReset(pages: ["p"]), .restore,
                [Self.page(), Self.page("q")],
                .restore(
                    MachineEvent(
                        kind: .factoryReset, detail: ["p"], fingerprint: Self.known, noticedAt: Self.t1, restore: .pending,
                        restorePages: ["p"]))
            ),
            (
                "changed elsewhere: never restored", Self.record(), Self.known,
                .changedElsewhere(registers: ["p": ["r"]]), .restore, [Self.page(elsewhere: ["r"])],
                .noticed(MachineEvent(kind: .changedElsewhere, detail: ["p: r"], fingerprint: Self.known, noticedAt: Self.t1))
            ),
            (
                "the same finding, pending: tried again", Self.record(pending), Self.other, replaced, .restore, [Self.page()],
                .restore(pending)
            ),
            (
                "the same finding, started: never twice",
                Self.record(MachineRecognition.started(Self.record(pending), job: "j").event),
                Self.other, replaced, .restore, [Self.page()], .none
            ),
            (
                "replayed since: adopted", Self.record(MachineRecognition.started(Self.record(pending), job: "j").event),
                Self.other, replaced, .restore, [Self.page(at: Self.t1.addingTimeInterval(1))],
                .resolved(MachineRecognition.started(Self.record(pending), job: "j").event!, adopted: true)
            ),
            (
                "a reset restored: resolved, the same machine", Self.record(resetStarted), Self.known,
                .factoryReset(pages: ["p"]), .restore, [Self.page(at: Self.t1.addingTimeInterval(1)), Self.page("q")],
                .resolved(resetStarted, adopted: false)
            ),
            (
                "a reset not yet restored: never twice", Self.record(resetStarted), Self.known, .factoryReset(pages: ["p"]),
                .restore, [Self.page(), Self.page("q")], .none
            ),
            (
                "another model, pages never replayed: stays open", Self.record(anotherModel), Self.other,
                .anotherModel(differs: ["model"]), .restore, [Self.page(version: nil, at: nil)], .none
            ),
            (
                "back to conforming: resolved", Self.record(pending), Self.known, .sameAndConforming, .restore, [Self.page()],
                .resolved(pending, adopted: false)
            ),
        ]
        for (name, record, now, verdict, policy, pages, action) in cases {
            let (next, got) = MachineRecognition.next(
                record: record, parts: Self.parts, now: now, verdict: verdict, policy: policy, pages: pages, at: Self.t1)
            XCTAssertEqual(got, action, name)
            switch got {
            case .noticed(let e), .restore(let e), .updated(let e): XCTAssertEqual(next.event, e, name)
            case .resolved(_, let adopted):
                XCTAssertNil(next.event, name)
                XCTAssertEqual(next.known, adopted ? now : Self.known, name)
            case .recorded: XCTAssertEqual(next, MachineRecord(known: now, parts: Self.parts, knownSince: Self.t1), name)
            case .none: XCTAssertEqual(next, record, name)
            }
        }
    }

    func testAPendingRestoreUnderAPolicyNoLongerRestoreIsWithheld() {
        let pending = MachineEvent(
            kind: .replaced, detail: ["serial"], fingerprint: Self.other, noticedAt: Self.t1, restore: .pending,
            restorePages: ["p"])
        let (next, action) = MachineRecognition.next(
            record: Self.record(pending), parts: Self.parts, now: Self.other, verdict: .replaced(changed: ["serial"]),
            policy: .notify, pages: [Self.page()], at: Self.t1)
        XCTAssertEqual(next.event?.restore, .withheld)
        guard case .updated = action else { return XCTFail("\(action)") }
    }

    func testTheRecheckHoldingTheMachine() {
        let event = MachineEvent(
            kind: .replaced, detail: ["serial"], fingerprint: Self.other, noticedAt: Self.t1, restore: .pending,
            restorePages: ["p"])
        let replaced = MachineVerdict.replaced(changed: ["serial"])
        XCTAssertNil(MachineRecognition.recheck(event, verdict: replaced, now: Self.other, pages: [Self.page()]))
        let third = MachineFingerprint(model: ["model": "00C8"], instance: ["serial": "00000008"])
        XCTAssertNotNil(MachineRecognition.recheck(event, verdict: replaced, now: third, pages: [Self.page()]))
        XCTAssertNotNil(MachineRecognition.recheck(event, verdict: .unreadable, now: nil, pages: [Self.page()]))
        XCTAssertEqual(
            MachineRecognition.recheck(event, verdict: replaced, now: Self.other, pages: [Self.page(elsewhere: ["r"])]),
            "page p holds values set elsewhere: r")
        XCTAssertNotNil(
            MachineRecognition.recheck(event, verdict: .anotherModel(differs: ["model"]), now: Self.other, pages: [Self.page()]))
    }

    func testARegisterSetElsewhereIsNeitherAppliedNorUnset() {
        let reading = AppliedPageReading(
            pageId: "p", applied: ["a": [2], "b": [215], "c": [1], "d": [9]], live: ["a": [2], "b": [0xFFFF], "c": [7]],
            unset: ["b": [[0xFFFF]]])
        XCTAssertEqual(reading.setElsewhere, ["c", "d (not read)"])
    }
}
