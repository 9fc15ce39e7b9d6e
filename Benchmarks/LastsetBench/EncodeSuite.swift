import Foundation
import LastsetCore
import LastsetEngine

/// The JSON a replay and a capture write, timed alone in this process (no device, no database): the template
/// file, the audit record of a replay, the journal's intent and window checks, the device state and the job's
/// report, for pages of each `--sizes` size; and the template file, an audit record and an intent read back. A narrow bench for the fast writer (issue 21): a build before a
/// change and one after run it interleaved on the same machine.
extension Bench {
    func encodeSuite() throws {
        for n in options.sizes {
            let shapes = EncodeShapes(registers: n)
            let file = TemplateFile.encode(shapes.template)
            let auditJSON = try APICoding.encoder().encode(shapes.outcome)
            let intentJSON = Data(ReplayEvent(.intent, intent: shapes.intent).journalLine)
            let cases: [(String, () -> Int)] = [
                ("template file", { TemplateFile.encode(shapes.template).count }),
                ("audit record (replay outcome)", { AuditLog.Row(shapes.outcome).byteCount }),
                ("journal intent", { ReplayEvent(.intent, intent: shapes.intent).journalLine.count }),
                ("journal window checks", { ReplayEvent(.check, checks: shapes.checks).journalLine.count }),
                ("device state", { DeviceStateStore.Row(shapes.state).byteCount }),
                ("replay report (API body)", { APICoding.json(shapes.report).count }),
                ("template file, decoded", { (try? TemplateFile.decode(file))?.entries.count ?? -1 }),
                (
                    "audit record, decoded",
                    { (try? APICoding.decoder().decode(AuditRecord.self, from: auditJSON))?.registers.count ?? -1 }
                ),
                (
                    "journal intent, decoded",
                    { (try? APICoding.decoder().decode(ReplayEvent.self, from: intentJSON))?.intent?.registers.count ?? -1 }
                ),
            ]
            for (name, encode) in cases {
                var samples = Samples()
                // A warm-up; interleaving is left to the caller (two builds run alternately).
                var bytes = encode()
                for _ in 0..<max(options.reps, 5) {
                    let start = ContinuousClock.now
                    bytes = encode()
                    samples.add(ContinuousClock.now - start)
                }
                report.encoding.append(
                    BenchReport.Encoding(
                        shape: name, registers: n, bytes: bytes, medianMs: samples.median, minMs: samples.min,
                        maxMs: samples.max, runs: samples.runsMs.count))
                say("\(name), \(n) registers: \(samples.text) ms, \(bytes) (bytes or registers)")
            }
        }
    }
}

/// Values of the shapes a replay of `registers` registers writes (u16, s32, f32 and text registers in turn).
struct EncodeShapes {
    let template: Template
    let outcome: AuditRecord
    let intent: ReplayIntent
    let checks: [JournalCheck]
    let state: DevicePageState
    let report: ReplayReport

    init(registers n: Int) {
        let time = Date(timeIntervalSince1970: 1_800_000_000.25)
        let layouts = [
            EntryLayout(type: .u16, wordOrder: nil, byteOrder: .big, unset: [[0xFFFF]]),
            EntryLayout(type: .s32, wordOrder: .big, byteOrder: .big, unset: []),
            EntryLayout(type: .f32, wordOrder: .little, byteOrder: .big, unset: [], unsetNaN: true),
            EntryLayout(type: .string(4), wordOrder: nil, byteOrder: .big, unset: []),
        ]
        let values: [(RegisterValue, String)] = [
            (.unsigned(1234), "04D2"), (.signed(-70000), "FFFEEE90"), (.float(21.5), "000041AC"), (.text("AB"), "41420000"),
        ]
        var entries: [TemplateEntry] = []
        var address = 0
        for i in 0..<n {
            let (value, hex) = values[i % 4]
            let length = hex.count / 4
            entries.append(
                TemplateEntry(
                    registerId: "page.register_\(i)", address: address, length: length, valueData: hex, value: value,
                    lastDate: time, layout: layouts[i % 4]))
            address += length
        }
        let identity = [RecordedValue(registerId: "page.model", address: 9000, valueData: "5052", value: .text("PR"))]
        template = Template(
            pageId: "page", pageHash: "sha256:" + String(repeating: "ab", count: 32), version: 7, capturedAt: time,
            capturedBy: "uid:1000",
            source: TemplateSource(deviceId: "press-a", endpoint: "tcp://127.0.0.1:1502", unit: 1, identity: identity),
            entries: entries, skipped: [])
        let registers = entries.map {
            IntentRegister(
                registerId: $0.registerId, address: $0.address, length: $0.length, expected: $0.value,
                expectedData: $0.valueData, before: .unsigned(0), beforeData: String(repeating: "0", count: $0.length * 4))
        }
        intent = ReplayIntent(
            job: "5F0C2D44-1B7E-4E0B-9A52-0D6B8F1C7A33", time: time, who: "token:ops", pageId: "page", deviceId: "press-b",
            device: "press-b", endpoint: "tcp://127.0.0.1:1503", unit: 1, templateVersion: 7, pageHash: template.pageHash,
            identity: identity, onError: .stop, registers: registers, beforeWrite: [], afterWrite: [])
        checks = entries.map { JournalCheck(registerId: $0.registerId, data: $0.valueData) }
        outcome = AuditRecord(
            time: time, kind: .replay, who: "token:ops", pageId: "page", device: "press-b", endpoint: "tcp://127.0.0.1:1503",
            unit: 1, identity: identity, templateVersion: 7, pageHash: template.pageHash, result: .succeeded, message: nil,
            registers: entries.map {
                AuditRegister(
                    registerId: $0.registerId, before: .unsigned(0), after: $0.value, status: .replay(.verified), written: $0.value,
                    readBack: $0.value)
            }, job: intent.job, writeFrames: (n + 119) / 120, templateVersionId: "7", registersChanged: n)
        state = DevicePageState(
            device: "press-b", pageId: "page",
            applied: AppliedTemplate(template: template, appliedAt: time, appliedBy: "token:ops", job: intent.job))
        report = ReplayReport(
            pageId: "page", templateVersion: 7, pageHash: template.pageHash, target: "press-b", endpoint: "tcp://127.0.0.1:1503",
            unit: 1, options: ReplayOptions(), status: .succeeded, warnings: [], identity: [], beforeWrite: [], afterWrite: [],
            registers: entries.map {
                RegisterResult(
                    registerId: $0.registerId, address: $0.address, length: $0.length, status: .verified, expected: $0.value,
                    expectedData: $0.valueData, actual: $0.value, actualData: $0.valueData, before: .unsigned(0),
                    beforeUnset: false)
            },
            plan: [], fellBackToFC06: false, requests: 2 * ((n + 119) / 120), writeFrames: (n + 119) / 120)
    }
}
