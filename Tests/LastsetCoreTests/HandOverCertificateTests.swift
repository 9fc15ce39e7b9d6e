import Foundation
import LastsetFormats
import XCTest

@testable import LastsetCore

/// `HandOverCertificate.make`, the one decision of what a certificate says, table by table: refusals, verdicts,
/// each register status's row, facts from the records only, what is said to be missing; and the HTML's escaping.
final class HandOverCertificateTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    private let job = "5e0c1a2b-77aa-4d2e-9c1f-0123456789ab"
    private let signer = CertificateSigner(
        principal: "lastset@line-7", publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKey", fingerprint: "SHA256:abc")

    private func record(
        _ result: AuditResult, kind: AuditKind = .replay, job: String? = nil, at seconds: Double = 0,
        registers: [AuditRegister] = [], message: String? = nil
    ) -> AuditRecord {
        var r = AuditRecord(
            time: t0.addingTimeInterval(seconds), kind: kind, who: "uid:1000(ops)", pageId: "heating", device: "press-b",
            endpoint: "tcp://127.0.0.1:1502", unit: 1,
            identity: [RecordedValue(registerId: "heating.model", address: 0, valueData: "0007", value: .unsigned(7))],
            templateVersion: 3, pageHash: "sha256:page", result: result, message: message, registers: registers,
            job: job ?? self.job)
        if result != .started { r.templateVersionId = "3" }
        return r
    }

    private func register(
        _ id: String, _ status: RegisterStatus, before: RegisterValue? = .unsigned(1), written: RegisterValue? = .unsigned(2),
        readBack: RegisterValue? = .unsigned(2), after: RegisterValue? = .unsigned(2), message: String? = nil
    ) -> AuditRegister {
        AuditRegister(
            registerId: id, before: before, after: after, status: .replay(status), written: written, readBack: readBack,
            message: message)
    }

    private func source(_ records: [AuditRecord], asked: String? = nil, file: TemplateFileCheck = .checksum("sha256:file"))
        -> CertificateSource
    {
        CertificateSource(asked: asked ?? job, records: records, templateFile: file, host: "line-7", signer: signer)
    }

    private func make(_ records: [AuditRecord], file: TemplateFileCheck = .checksum("sha256:file")) throws
        -> HandOverCertificate
    {
        try HandOverCertificate.make(source(records, file: file)).get()
    }

    func testRefusals() {
        let other = "99999999-0000-0000-0000-000000000000"
        let rows: [(String, [AuditRecord], CertificateRefusal)] = [
            ("no record", [], .noRecords(job: job)),
            (
                "records without a job",
                [
                    {
                        var r = record(.succeeded)
                        r.job = nil
                        return r
                    }()
                ], .noRecords(job: job)
            ),
            ("two jobs", [record(.succeeded), record(.succeeded, job: other)], .ambiguous(job: job, matches: [job, other])),
            ("a capture", [record(.archived, kind: .capture)], .notAReplay(job: job, kind: .capture)),
            ("an import", [record(.archived, kind: .import)], .notAReplay(job: job, kind: .import)),
        ]
        for (name, records, refusal) in rows {
            XCTAssertEqual(HandOverCertificate.make(source(records)), .failure(refusal), name)
        }
        XCTAssertEqual(
            CertificateRefusal.ambiguous(job: "5", matches: [job, other]).description,
            "\"5\" names 2 jobs (\(job), \(other)): give more of the id")
    }

    func testVerdicts() throws {
        let ok = register("heating.mode", .verified)
        let bad = register("heating.limit", .mismatch, readBack: .unsigned(100), after: .unsigned(100))
        let rows: [(String, [AuditRecord], CertificateVerdict, String)] = [
            (
                "succeeded", [record(.started, registers: [ok]), record(.succeeded, at: 1, registers: [ok])], .complete,
                "Complete: every register written and read back equal (1 of 1)."
            ),
            (
                "failed", [record(.started), record(.failed, at: 1, registers: [ok, bad], message: "stopped at heating.limit")],
                .incomplete,
                "NOT COMPLETE: 1 of 2 registers did not take: heating.limit (did not take: read back differs). The record says: stopped at heating.limit."
            ),
            (
                "a succeeded record with a register that did not take is not complete",
                [record(.succeeded, registers: [ok, bad])], .incomplete,
                "NOT COMPLETE: 1 of 2 registers did not take: heating.limit (did not take: read back differs)."
            ),
            (
                "interrupted", [record(.started), record(.interrupted, at: 5, registers: [register("heating.mode", .inDoubt)])],
                .interrupted,
                "INTERRUPTED: the daemon stopped while writing; the machine may be partially written. 1 of 1 registers not known to have taken: heating.mode (in doubt: sent, no answer)."
            ),
            (
                "intent only", [record(.started, registers: [register("heating.mode", .notAttempted)])], .outcomeNotRecorded,
                "OUTCOME NOT RECORDED: only the job's intent is in the audit log (still running, or its outcome was never written). 1 registers were to be written; none is known to have taken."
            ),
        ]
        for (name, records, verdict, summary) in rows {
            let c = try make(records)
            XCTAssertEqual(c.verdict, verdict, name)
            XCTAssertEqual(c.summary, summary, name)
            XCTAssertEqual(c.recordedAt, records.last { $0.result != .started }?.time ?? t0, name)
        }
    }

    func testEachRegisterStatusRow() throws {
        let rows: [(AuditRegister, [String], Bool)] = [
            (register("a", .verified), ["a", "1", "2", "2", "2", "template", "none", "took"], true),
            (
                register("b", .mismatch, readBack: .unsigned(9), after: .unsigned(9)),
                ["b", "1", "2", "9", "9", "template", "none", "did not take: read back differs"], false
            ),
            (
                register("c", .rejected, readBack: nil, after: .unsigned(1), message: "exception 4"),
                [
                    "c", "1", "2", "not read back", "1", "template", "none",
                    "did not take: the device refused the write (exception 4)",
                ],
                false
            ),
            (
                register("d", .failed, written: nil, readBack: nil, after: nil),
                ["d", "1", "not written", "not read back", "unknown", "template", "none", "did not take: not sent"], false
            ),
            (
                register("e", .inDoubt, readBack: nil, after: nil),
                ["e", "1", "2", "not read back", "unknown", "template", "none", "in doubt: sent, no answer"], false
            ),
            (
                register("f", .unverified, readBack: nil),
                ["f", "1", "2", "not read back", "2", "template", "none", "unverified: acknowledged, not read back"], false
            ),
            (
                register("g", .changedLater, after: .unsigned(5)),
                ["g", "1", "2", "2", "5", "template", "none", "did not hold: changed after it was verified"], false
            ),
            (
                register("h", .notAttempted, before: nil, written: nil, readBack: nil, after: nil),
                ["h", "not recorded", "not written", "not read back", "unknown", "template", "none", "not written"], false
            ),
            (
                register(
                    "i", .verified, before: .text("a\"b"), written: .float(-1.5), readBack: .float(-1.5),
                    after: .bytes([0xAB, 1])),
                ["i", "\"a\"b\"", "-1.5", "-1.5", "0xAB01", "template", "none", "took"], true
            ),
            (
                {
                    var r = register("j", .verified, after: .unsigned(1))
                    r.rollback = AuditRollback(restored: .unsigned(1), readBack: .unsigned(1), status: .verified)
                    return r
                }(), ["j", "1", "2", "2", "1", "template", "none", "took; rolled back to 1 (read back 1)"], false
            ),
        ]
        for (register, cells, took) in rows {
            let row = HandOverCertificate.row(register, outcomeRecorded: true)
            XCTAssertEqual(row.cells, cells, register.registerId)
            XCTAssertEqual(row.took, took, register.registerId)
        }
        // Without an outcome nothing is known to have taken, whatever the intent listed.
        let pending = HandOverCertificate.row(register("k", .notAttempted, readBack: nil, after: nil), outcomeRecorded: false)
        XCTAssertEqual(
            pending.cells, ["k", "1", "2", "not read back", "unknown", "template", "none", "not known: no outcome recorded"])
        XCTAssertFalse(pending.took)
        XCTAssertEqual(HandOverCertificate.columns.count, pending.cells.count)
    }

    func testFactsComeFromTheRecords() throws {
        var outcome = record(.succeeded, at: 2, registers: [register("heating.mode", .verified)])
        outcome.writeFrames = 4
        outcome.registersChanged = 1
        outcome.beforeWrite = [StepResult(address: 1536, value: 6868, status: .ok, readBack: 6868)]
        outcome.afterWrite = [StepResult(address: 2304, value: 0, status: .notAttempted, message: "stopped")]
        let c = try make([record(.started, at: 0), outcome])
        XCTAssertEqual(
            c.facts.map { "\($0.label): \($0.value)" },
            [
                "Machine: press-b (tcp://127.0.0.1:1502, unit 1)",
                "Job: \(job)",
                "Identity heating.model: 7 (words 0007)",
                "Page: heating",
                "Template version: 3",
                "Page hash: sha256:page",
                "Template file: sha256:file (as archived now)",
                "Started: \(TimeText.iso8601(t0))",
                "Ended: \(TimeText.iso8601(t0.addingTimeInterval(2)))",
                "By: uid:1000(ops)",
                "Reason: not recorded",
                "Approvals: none recorded",
                "Outcome: succeeded",
                "Write frames: 4",
                "Registers a write may have changed: 1",
                "beforeWrite[0]: 1536 := 6868 ok, read back 6868",
                "afterWrite[0]: 2304 := 0 notAttempted (stopped)",
                "Recorded on host: line-7",
                "Signed by: lastset@line-7 (SHA256:abc), namespace lastset-certificate",
            ])
        XCTAssertEqual(
            c.notRecorded,
            [
                "No reason for the write is recorded.",
                "No approval is recorded (the page is not under change control, or this record predates it).",
            ])
        XCTAssertEqual(
            c.verification.last,
            "Check: ssh-keygen -Y verify -f allowed_signers -I lastset@line-7 -n lastset-certificate -s lastset-certificate-5e0c1a2b.pdf.sig < lastset-certificate-5e0c1a2b.pdf"
        )
        XCTAssertEqual(
            signer.allowedSignersLine,
            "lastset@line-7 namespaces=\"lastset-certificate\" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKey")
    }

    /// What the records say of each value's origin (overrides, tolerances) and of the write's signatures (reason,
    /// change request, approvals) is printed as recorded; nothing is said missing that the records carry.
    func testOriginsAndSignaturesComeFromTheRecords() throws {
        let table: [(EntryOrigin?, String, String)] = [
            (nil, "template", "none"),
            (EntryOrigin(source: .template), "template", "none"),
            (EntryOrigin(source: .template, tolerance: .percent(2)), "template", "±2%"),
            (EntryOrigin(source: .override, overrideFrom: .device("press-b")), "override (device:press-b)", "none"),
            (
                EntryOrigin(source: .override, overrideFrom: .group("line-a"), tolerance: .absolute(0.1)),
                "override (group:line-a)", "±0.1"
            ),
        ]
        for (origin, from, band) in table {
            var r = register("heating.setpoint", .verified)
            r.origin = origin
            let row = try XCTUnwrap(try make([record(.succeeded, registers: [r])]).rows.first)
            XCTAssertEqual([row.valueFrom, row.tolerance], [from, band], "\(String(describing: origin))")
        }
        let approvals = [
            Approval(who: "token:ann", time: t0, meaning: .authorship, reason: "grid code 2027"),
            Approval(who: "token:bob", time: t0.addingTimeInterval(60), meaning: .approval, reason: "checked the limits"),
        ]
        var intent = record(.started)
        var outcome = record(.succeeded, at: 2, registers: [register("heating.mode", .verified)])
        for i in [0, 1] {
            var r = i == 0 ? intent : outcome
            r.reason = "grid code 2027"
            r.meaning = .authorship
            r.changeRequest = "cr-7"
            r.approvals = approvals
            if i == 0 { intent = r } else { outcome = r }
        }
        let c = try make([intent, outcome])
        let facts = Dictionary(c.facts.map { ($0.label, $0.value) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(facts["Reason"], "grid code 2027")
        XCTAssertEqual(facts["Change request"], "cr-7")
        XCTAssertEqual(facts["Signature 1"], "token:ann, \(TimeText.iso8601(t0)), authorship: grid code 2027")
        XCTAssertEqual(
            facts["Signature 2"], "token:bob, \(TimeText.iso8601(t0.addingTimeInterval(60))), approval: checked the limits")
        XCTAssertNil(facts["Approvals"])
        XCTAssertEqual(c.notRecorded, [])
        // An intent alone (no outcome recorded) still carries the signature.
        let intentOnly = try make([intent])
        XCTAssertEqual(intentOnly.facts.first { $0.label == "Reason" }?.value, "grid code 2027")
        XCTAssertFalse(intentOnly.notRecorded.contains { $0.hasPrefix("No reason") || $0.hasPrefix("No approval") })
    }

    func testWhatTheRecordsLackIsSaid() throws {
        var old = record(.failed, registers: [register("a", .verified, before: nil)])
        old.templateVersionId = nil
        let c = try make([old], file: .unavailable("version 3 was deleted"))
        XCTAssertEqual(c.facts.first { $0.label == "Started" }?.value, "not recorded")
        XCTAssertEqual(c.facts.first { $0.label == "Template file" }?.value, "not available: version 3 was deleted")
        XCTAssertEqual(
            Array(c.notRecorded.dropFirst(2)),
            [
                "The job's intent (its start, before the first write) is not in the audit log.",
                "The record names the version by number only (written before version ids were recorded).",
                "The template file's checksum cannot be given: version 3 was deleted.",
                "No value as found is recorded for: a.",
            ])
        let intentOnly = try make([record(.started)])
        XCTAssertEqual(intentOnly.facts.first { $0.label == "Ended" }?.value, "not recorded")
        XCTAssertEqual(intentOnly.facts.first { $0.label == "Outcome" }?.value, "not recorded")
        XCTAssertTrue(
            intentOnly.notRecorded.contains("The job's outcome is not in the audit log: no register is known to have taken."))
        var unsigned = source([record(.succeeded)])
        unsigned.signer = nil
        let c2 = try HandOverCertificate.make(unsigned).get()
        XCTAssertEqual(c2.facts.last?.value, "not signed: this host has no certificate key")
        XCTAssertEqual(c2.verification, [])
    }

    func testFileNames() {
        let rows: [(CertificateFormat, String, String)] = [
            (.pdf, job, "lastset-certificate-5e0c1a2b.pdf"),
            (.html, job, "lastset-certificate-5e0c1a2b.html"),
            (.pdfSignature, job, "lastset-certificate-5e0c1a2b.pdf.sig"),
            (.htmlSignature, "../../etc/passwd", "lastset-certificate-etcpassw.html.sig"),
        ]
        for (format, job, name) in rows { XCTAssertEqual(format.fileName(job: job), name) }
        XCTAssertEqual(CertificateFormat.htmlSignature.signed, .html)
        XCTAssertNil(CertificateFormat.html.signed)
        XCTAssertEqual(CertificateFormat.pdfSignature.signed, .pdf)
        XCTAssertNil(CertificateFormat.pdf.signed)
    }

    func testTheHTMLPageEscapesEveryText() throws {
        var r = record(.failed, registers: [register("<b>x</b>", .mismatch, written: .text("a&b"))])
        r.device = "press-\"b\" <script>"
        let c = try make([r])
        let html = CertificateHTML.page(c)
        XCTAssertFalse(html.contains("<script>"))
        XCTAssertFalse(html.contains("<b>x"))
        XCTAssertTrue(html.contains("press-&quot;b&quot; &lt;script&gt;"))
        XCTAssertTrue(html.contains("<td class=\"value\">&quot;a&amp;b&quot;</td>"))
        XCTAssertTrue(html.contains("<tr class=\"missed\">"))
        for column in HandOverCertificate.columns { XCTAssertTrue(html.contains("<th>\(column)</th>"), column) }
        XCTAssertEqual(CertificateHTML.escape("a\u{1}b\tc'"), "a&#xFFFD;b\tc&#39;")
    }
}
