import Foundation
import LastsetCore
import XCTest

/// The one decision of what a scheduled backup found (`AsFoundComparison`), as a table; and its audit message.
final class AsFoundComparisonTests: XCTestCase {
    private static func v(_ id: String, _ hex: String, _ value: RegisterValue) -> RecordedValue {
        RecordedValue(registerId: id, address: 0, valueData: hex, value: value)
    }

    private static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    private static let ops = AsFoundAuthor(job: "J1", who: "token:ops", time: t0.addingTimeInterval(10))
    private static let restore = AsFoundAuthor(job: "J2", who: "policy:replacement", time: t0.addingTimeInterval(20))

    private static func previous(_ values: [RecordedValue], identity: [RecordedValue] = [v("serial", "0007", .unsigned(7))])
        -> AsFoundRecord
    {
        AsFoundRecord(
            device: "press", pageId: "heating", number: 3, takenAt: t0, who: "policy:backup", job: "B", pageHash: "H",
            identity: identity, values: values)
    }

    func testVerdictsFromATable() {
        let was = [Self.v("mode", "0002", .unsigned(2)), Self.v("setpoint", "00D7", .signed(215))]
        let serial = [Self.v("serial", "0007", .unsigned(7))]
        struct Row {
            let name: String
            let previous: AsFoundRecord?
            let identity: [RecordedValue]
            let values: [RecordedValue]
            let pageHash: String
            let writes: [KnownWrite]
            let expected: AsFoundVerdict
        }
        let setpoint230 = Self.v("setpoint", "00E6", .signed(230))
        let rows: [Row] = [
            Row(name: "no record before", previous: nil, identity: serial, values: was, pageHash: "H", writes: [], expected: .first),
            Row(name: "the same", previous: Self.previous(was), identity: serial, values: was, pageHash: "H", writes: [],
                expected: .unchanged),
            Row(name: "the same words spelt in lower case", previous: Self.previous(was), identity: serial,
                values: [Self.v("mode", "0002", .unsigned(2)), Self.v("setpoint", "00d7", .signed(215))], pageHash: "H",
                writes: [], expected: .unchanged),
            Row(name: "a change nobody Lastset knows made", previous: Self.previous(was), identity: serial,
                values: [was[0], setpoint230], pageHash: "H", writes: [],
                expected: .changed(
                    [AsFoundChange(registerId: "setpoint", kind: .changed, before: was[1], after: setpoint230)],
                    machineChanged: false, pageChanged: false)),
            Row(name: "a change Lastset made (the value its record says it left; JSON reads 230 as unsigned)",
                previous: Self.previous(was), identity: serial, values: [was[0], setpoint230], pageHash: "H",
                writes: [KnownWrite(registerId: "setpoint", value: .unsigned(230), author: Self.ops)],
                expected: .changed(
                    [AsFoundChange(registerId: "setpoint", kind: .changed, before: was[1], after: setpoint230, by: Self.ops)],
                    machineChanged: false, pageChanged: false)),
            Row(name: "Lastset wrote another value: someone changed it after", previous: Self.previous(was), identity: serial,
                values: [was[0], setpoint230], pageHash: "H",
                writes: [KnownWrite(registerId: "setpoint", value: .signed(240), author: Self.ops)],
                expected: .changed(
                    [AsFoundChange(registerId: "setpoint", kind: .changed, before: was[1], after: setpoint230)],
                    machineChanged: false, pageChanged: false)),
            Row(name: "only Lastset's last write counts (230 then 240; 230 found: someone put it back)",
                previous: Self.previous(was), identity: serial, values: [was[0], setpoint230], pageHash: "H",
                writes: [
                    KnownWrite(registerId: "setpoint", value: .signed(230), author: Self.ops),
                    KnownWrite(registerId: "setpoint", value: .signed(240), author: Self.restore),
                ],
                expected: .changed(
                    [AsFoundChange(registerId: "setpoint", kind: .changed, before: was[1], after: setpoint230)],
                    machineChanged: false, pageChanged: false)),
            Row(name: "a write to another register credits nothing here", previous: Self.previous(was), identity: serial,
                values: [was[0], setpoint230], pageHash: "H",
                writes: [KnownWrite(registerId: "mode", value: .signed(230), author: Self.ops)],
                expected: .changed(
                    [AsFoundChange(registerId: "setpoint", kind: .changed, before: was[1], after: setpoint230)],
                    machineChanged: false, pageChanged: false)),
            Row(name: "another machine with the same values", previous: Self.previous(was),
                identity: [Self.v("serial", "0008", .unsigned(8))], values: was, pageHash: "H", writes: [],
                expected: .changed([], machineChanged: true, pageChanged: false)),
            Row(name: "the page gained and lost a register", previous: Self.previous(was), identity: serial,
                values: [was[0], Self.v("ramp", "0005", .unsigned(5))], pageHash: "H2", writes: [],
                expected: .changed(
                    [
                        AsFoundChange(registerId: "ramp", kind: .added, before: nil, after: Self.v("ramp", "0005", .unsigned(5))),
                        AsFoundChange(registerId: "setpoint", kind: .removed, before: was[1], after: nil),
                    ], machineChanged: false, pageChanged: true)),
            Row(name: "only the page definition changed", previous: Self.previous(was), identity: serial, values: was,
                pageHash: "H2", writes: [], expected: .changed([], machineChanged: false, pageChanged: true)),
        ]
        for row in rows {
            XCTAssertEqual(
                AsFoundComparison.compare(
                    previous: row.previous, identity: row.identity, values: row.values, pageHash: row.pageHash,
                    writes: row.writes),
                row.expected, row.name)
        }
    }

    func testKnownWritesAreTheRegistersAReplaysRecordSaysItSentAndLeft() {
        var record = AuditRecord(
            time: Self.t0, kind: .replay, who: "token:ops", pageId: "heating", device: "press", endpoint: "tcp://x:1",
            unit: 1, identity: [], templateVersion: 1, pageHash: "H", result: .succeeded, message: nil,
            registers: [
                AuditRegister(registerId: "mode", before: .unsigned(1), after: .unsigned(2), status: .replay(.verified), written: .unsigned(2)),
                AuditRegister(registerId: "setpoint", before: .unsigned(215), after: .unsigned(215), status: .replay(.unchanged)),
                AuditRegister(registerId: "ramp", before: .unsigned(1), after: nil, status: .replay(.failed), written: .unsigned(4)),
            ], job: "J1")
        XCTAssertEqual(
            KnownWrite.of(record),
            [KnownWrite(registerId: "mode", value: .unsigned(2), author: AsFoundAuthor(job: "J1", who: "token:ops", time: Self.t0))])
        record.result = .started
        XCTAssertEqual(KnownWrite.of(record), [], "an intent is not a write made")
        record.result = .succeeded
        record.kind = .dryRun
        XCTAssertEqual(KnownWrite.of(record), [], "a dry run writes nothing")
    }

    func testTheAuditMessageSaysWhatChangedAndByWhom() {
        var record = Self.previous([Self.v("mode", "0002", .unsigned(2))])
        record.number = 1
        XCTAssertEqual(AsFoundComparison.summary(record), "first backup: 1 register as found")
        record.number = 4
        record.changes = [
            AsFoundChange(registerId: "speed", kind: .changed, before: nil, after: nil),
            AsFoundChange(registerId: "ramp", kind: .changed, before: nil, after: nil),
            AsFoundChange(registerId: "temp", kind: .changed, before: nil, after: nil, by: Self.ops),
            AsFoundChange(registerId: "mode", kind: .changed, before: nil, after: nil, by: Self.restore),
            AsFoundChange(registerId: "limit", kind: .changed, before: nil, after: nil, by: Self.ops),
        ]
        record.machineChanged = true
        XCTAssertEqual(
            AsFoundComparison.summary(record),
            "changed since the last backup: another machine answers (its identity differs from the last backup's); registers speed, ramp, by nobody Lastset knows; registers temp, limit by job J1 (token:ops); register mode by job J2 (policy:replacement)"
        )
    }
}
