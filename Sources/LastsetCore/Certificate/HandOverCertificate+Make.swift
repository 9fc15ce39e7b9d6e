import Foundation
import LastsetFormats

extension HandOverCertificate {
    /// The register table's column titles.
    public static let columns = [
        "Register", "As found", "Written", "Read back", "Held at end", "Value from", "Tolerance", "Outcome",
    ]

    /// The certificate of the job `source` names, from its records alone: the outcome record's registers (the
    /// intent's when no outcome is recorded), its machine, identity, version, hashes, times and people. A value the
    /// records lack is said to be missing, never filled in. The one decision of what a certificate says.
    public static func make(_ source: CertificateSource) -> Result<HandOverCertificate, CertificateRefusal> {
        let jobs = source.records.compactMap(\.job).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        guard let job = jobs.first else { return .failure(.noRecords(job: source.asked)) }
        guard jobs.count == 1 else { return .failure(.ambiguous(job: source.asked, matches: jobs)) }
        let intent = source.records.first { $0.result == .started }
        let outcome = source.records.last { $0.result != .started }
        guard let main = outcome ?? intent else { return .failure(.noRecords(job: source.asked)) }
        guard main.kind == .replay else { return .failure(.notAReplay(job: job, kind: main.kind)) }
        let rows = main.registers.map { register in row(register, outcomeRecorded: outcome != nil) }
        let verdict = verdict(outcome, rows: rows)
        return .success(
            HandOverCertificate(
                job: job, verdict: verdict, summary: summary(verdict, outcome: outcome, rows: rows),
                facts: facts(source, job: job, main: main, intent: intent, outcome: outcome), columns: columns, rows: rows,
                notRecorded: notRecorded(intent: intent, outcome: outcome, rows: rows, source: source),
                verification: verification(source.signer, job: job), signer: source.signer, recordedAt: main.time))
    }

    /// The verdict the outcome record gives: complete only for a succeeded replay whose every register took.
    static func verdict(_ outcome: AuditRecord?, rows: [CertificateRow]) -> CertificateVerdict {
        guard let outcome else { return .outcomeNotRecorded }
        switch outcome.result {
        case .succeeded: return rows.allSatisfy(\.took) ? .complete : .incomplete
        case .interrupted: return .interrupted
        default: return .incomplete
        }
    }

    /// The sentence under the title: the verdict, and each register that did not take with why.
    static func summary(_ verdict: CertificateVerdict, outcome: AuditRecord?, rows: [CertificateRow]) -> String {
        let missed = rows.filter { !$0.took }
        let list = missed.map { "\($0.registerId) (\($0.outcome))" }.joined(separator: ", ")
        let why = outcome?.message.map { " The record says: \($0)." } ?? ""
        switch verdict {
        case .complete:
            return "Complete: every register written and read back equal (\(rows.count) of \(rows.count))."
        case .incomplete:
            return "NOT COMPLETE: \(missed.count) of \(rows.count) registers did not take: \(list).\(why)"
        case .interrupted:
            return "INTERRUPTED: the daemon stopped while writing; the machine may be partially written. "
                + "\(missed.count) of \(rows.count) registers not known to have taken: \(list).\(why)"
        case .outcomeNotRecorded:
            return "OUTCOME NOT RECORDED: only the job's intent is in the audit log (still running, or its outcome was "
                + "never written). \(rows.count) registers were to be written; none is known to have taken."
        }
    }

    /// One register's row: its recorded values as text, and what became of it.
    static func row(_ r: AuditRegister, outcomeRecorded: Bool) -> CertificateRow {
        let (outcome, took) = outcomeRecorded ? Self.outcome(r) : ("not known: no outcome recorded", false)
        let origin = valueOrigin(r)
        return CertificateRow(
            registerId: r.registerId, asFound: r.before.map(text) ?? "not recorded",
            written: r.written.map(text) ?? "not written", readBack: r.readBack.map(text) ?? "not read back",
            held: outcomeRecorded ? (r.after.map(text) ?? "unknown") : "unknown", valueFrom: origin.valueFrom,
            tolerance: origin.tolerance, outcome: outcome, took: took)
    }

    /// Where a register's written value came from and the band it may differ by, as the job's record says
    /// (`AuditRegister.origin`, docs/OVERRIDES.md): the template's value compared exactly when it says nothing.
    static func valueOrigin(_ r: AuditRegister) -> (valueFrom: String, tolerance: String) {
        guard let origin = r.origin else { return ("template", "none") }
        let from: String
        switch origin.source {
        case .template: from = "template"
        case .override: from = origin.overrideFrom.map { "override (\($0))" } ?? "override"
        }
        return (from, origin.tolerance.map(\.description) ?? "none")
    }

    /// A recorded value as printed: numbers as recorded, text quoted, bytes in hex.
    static func text(_ value: RegisterValue) -> String { value.description }

    /// What became of a register, and whether its written value is on the machine at hand-over.
    static func outcome(_ r: AuditRegister) -> (String, Bool) {
        var (text, took): (String, Bool)
        switch r.status {
        case .replay(.verified): (text, took) = ("took", true)
        case .replay(.mismatch): (text, took) = ("did not take: read back differs", false)
        case .replay(.rejected): (text, took) = ("did not take: the device refused the write", false)
        case .replay(.failed): (text, took) = ("did not take: not sent", false)
        case .replay(.inDoubt): (text, took) = ("in doubt: sent, no answer", false)
        case .replay(.unverified): (text, took) = ("unverified: acknowledged, not read back", false)
        case .replay(.changedLater): (text, took) = ("did not hold: changed after it was verified", false)
        case .replay(.notAttempted): (text, took) = ("not written", false)
        case .replay(.unchanged), .replay(.differs), .captured, .invalid, .imported:
            (text, took) = ("not written (\(r.status.rawValue))", false)
        }
        if !took, let message = r.message { text += " (\(message))" }
        if let rollback = r.rollback {
            let back = rollback.readBack.map(Self.text) ?? "not read back"
            text += "; rolled back to \(Self.text(rollback.restored)) (read back \(back))"
            took = false
        }
        return (text, took)
    }
}
