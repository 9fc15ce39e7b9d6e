import LastsetCore
import XCTest

/// The reconnect classifier (issue 23, part 3): what the machine behind a configured device is, from its fingerprint
/// and its applied pages as read now. Table-driven.
final class ReconnectClassifierTests: XCTestCase {
    static let known = MachineFingerprint(
        model: ["fc43:ProductCode": "5052532D323030", "model": "00C8"], instance: ["serial": "0001E240"])

    static func fingerprint(
        product: String = "5052532D323030", model: String = "00C8", serial: String = "0001E240", refused: Set<String> = []
    ) -> MachineFingerprint {
        MachineFingerprint(
            model: ["fc43:ProductCode": product, "model": model], instance: ["serial": serial], refusedRevisions: refused)
    }

    static func page(_ live: [String: [UInt16]], marker: Bool? = nil) -> AppliedPageReading {
        AppliedPageReading(
            pageId: "heating", applied: ["mode": [2], "setpoint": [215]], live: live,
            unset: ["mode": [[0xFFFF]], "setpoint": [[0x7FFF], [0x8000]]], resetMarker: marker)
    }

    func testEveryVerdictInItsOrder() {
        let conforming = Self.page(["mode": [2], "setpoint": [215]])
        let cases: [(String, MachineFingerprint?, MachineFingerprint?, [AppliedPageReading], MachineVerdict)] = [
            ("identity unreadable", Self.known, nil, [conforming], .unreadable),
            ("nothing known yet", nil, Self.fingerprint(), [conforming], .firstSeen),
            (
                "another product code", Self.known, Self.fingerprint(product: "5052532D333030"), [conforming],
                .anotherModel(differs: ["fc43:ProductCode"])
            ),
            (
                "revision not accepted", Self.known, Self.fingerprint(refused: ["fc43:MajorMinorRevision"]), [conforming],
                .anotherModel(differs: ["fc43:MajorMinorRevision"])
            ),
            (
                "a model part missing now", Self.known,
                MachineFingerprint(model: ["model": "00C8"], instance: ["serial": "0001E240"]),
                [conforming], .anotherModel(differs: ["fc43:ProductCode"])
            ),
            (
                "another model and another serial: another model first", Self.known,
                Self.fingerprint(model: "00C9", serial: "00000001"), [conforming], .anotherModel(differs: ["model"])
            ),
            ("another serial", Self.known, Self.fingerprint(serial: "00000001"), [conforming], .replaced(changed: ["serial"])),
            (
                "another serial at factory values: replaced", Self.known, Self.fingerprint(serial: "00000001"),
                [Self.page(["mode": [0xFFFF], "setpoint": [0x7FFF]])], .replaced(changed: ["serial"])
            ),
            (
                "same, every applied register not set", Self.known, Self.fingerprint(),
                [Self.page(["mode": [0xFFFF], "setpoint": [0x8000]])], .factoryReset(pages: ["heating"])
            ),
            (
                "same, reset marker (factory values that are not \"not set\")", Self.known, Self.fingerprint(),
                [Self.page(["mode": [1], "setpoint": [100]], marker: true)],
                .factoryReset(pages: ["heating"])
            ),
            (
                "same, reset marker outliving a restore (every value applied)", Self.known, Self.fingerprint(),
                [Self.page(["mode": [2], "setpoint": [215]], marker: true)], .sameAndConforming
            ),
            (
                "same, marker says no reset though values are unset", Self.known, Self.fingerprint(),
                [Self.page(["mode": [0xFFFF], "setpoint": [0x7FFF]], marker: false)],
                .changedElsewhere(registers: ["heating": ["mode", "setpoint"]])
            ),
            (
                "same, one register not set, one applied: a change", Self.known, Self.fingerprint(),
                [Self.page(["mode": [0xFFFF], "setpoint": [215]])], .changedElsewhere(registers: ["heating": ["mode"]])
            ),
            (
                "same, a value changed", Self.known, Self.fingerprint(), [Self.page(["mode": [2], "setpoint": [230]])],
                .changedElsewhere(registers: ["heating": ["setpoint"]])
            ),
            (
                "same, a register not read: no drift claimed", Self.known, Self.fingerprint(), [Self.page(["mode": [2]])],
                .sameAndConforming
            ),
            ("same, conforming", Self.known, Self.fingerprint(), [conforming], .sameAndConforming),
            ("same, nothing applied", Self.known, Self.fingerprint(), [], .sameAndConforming),
        ]
        for (name, known, now, pages, verdict) in cases {
            XCTAssertEqual(ReconnectClassifier.classify(known: known, now: now, pages: pages), verdict, name)
        }
    }

    func testAPageTheReplayWroteNothingToIsNoFactoryReset() {
        let empty = AppliedPageReading(pageId: "motion", applied: [:], live: [:])
        XCTAssertEqual(
            ReconnectClassifier.classify(known: Self.known, now: Self.fingerprint(), pages: [empty]), .sameAndConforming)
    }
}
