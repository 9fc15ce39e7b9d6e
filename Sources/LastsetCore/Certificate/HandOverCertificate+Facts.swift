import Foundation
import LastsetFormats

extension HandOverCertificate {
    /// The labelled facts, in print order: the machine and its identity, the template, the times and people, the
    /// outcome and its steps, the host and the signer.
    static func facts(
        _ source: CertificateSource, job: String, main: AuditRecord, intent: AuditRecord?, outcome: AuditRecord?
    ) -> [CertificateFact] {
        var facts = [
            CertificateFact("Machine", "\(main.device) (\(main.endpoint), unit \(main.unit))"),
            CertificateFact("Job", job),
        ]
        facts +=
            main.identity.isEmpty
            ? [CertificateFact("Identity", "none recorded (the page declares no identity registers)")]
            : main.identity.map { CertificateFact("Identity \($0.registerId)", "\(text($0.value)) (words \($0.valueData))") }
        facts += [
            CertificateFact("Page", main.pageId),
            CertificateFact("Template version", versionText(intent: intent, outcome: outcome)),
            CertificateFact("Page hash", main.pageHash),
            CertificateFact("Template file", templateFileText(source.templateFile)),
            CertificateFact("Started", intent.map { TimeText.iso8601($0.time) } ?? "not recorded"),
            CertificateFact("Ended", outcome.map { TimeText.iso8601($0.time) } ?? "not recorded"),
            CertificateFact("By", main.who),
            CertificateFact("Reason", signed(main, intent)?.reason ?? "not recorded"),
        ]
        facts += approvalFacts(signed(main, intent))
        facts += [
            CertificateFact("Outcome", outcomeText(outcome)),
        ]
        if let outcome {
            if let frames = outcome.writeFrames { facts.append(CertificateFact("Write frames", String(frames))) }
            if let changed = outcome.registersChanged {
                facts.append(CertificateFact("Registers a write may have changed", String(changed)))
            }
            facts += steps("beforeWrite", outcome.beforeWrite) + steps("afterWrite", outcome.afterWrite)
            if let rollback = outcome.rollback { facts.append(CertificateFact("Rollback", rollback.rawValue)) }
        }
        facts.append(CertificateFact("Recorded on host", source.host))
        facts.append(
            CertificateFact(
                "Signed by",
                source.signer.map { "\($0.principal) (\($0.fingerprint)), namespace \($0.namespace)" }
                    ?? "not signed: this host has no certificate key"))
        return facts
    }

    /// The record carrying the write's signature (reason, meaning, change request, approvals): the outcome, else
    /// the intent (both carry the same; an intent alone when no outcome was recorded).
    static func signed(_ main: AuditRecord, _ intent: AuditRecord?) -> AuditRecord? {
        [main, intent].compactMap { $0 }.first { $0.reason != nil || $0.approvals != nil || $0.changeRequest != nil }
    }

    /// The change request and each signature on it (name, time, meaning, reason), requester first; "none recorded"
    /// for a write outside change control.
    static func approvalFacts(_ record: AuditRecord?) -> [CertificateFact] {
        guard let record, let approvals = record.approvals, !approvals.isEmpty else {
            return [CertificateFact("Approvals", "none recorded")]
        }
        var facts: [CertificateFact] = []
        if let request = record.changeRequest { facts.append(CertificateFact("Change request", request)) }
        facts += approvals.enumerated().map { i, a in
            CertificateFact(
                "Signature \(i + 1)", "\(a.who), \(TimeText.iso8601(a.time)), \(a.meaning.rawValue): \(a.reason)")
        }
        return facts
    }

    /// The version as recorded: its id (the outcome's; a fleet id where there is one), else the intent's number.
    static func versionText(intent: AuditRecord?, outcome: AuditRecord?) -> String {
        if let id = outcome?.templateVersionId ?? intent?.templateVersionId { return id }
        if let number = outcome?.templateVersion ?? intent?.templateVersion { return String(number) }
        return "not recorded"
    }

    /// The archived file's checksum, or why it is not available.
    static func templateFileText(_ check: TemplateFileCheck) -> String {
        switch check {
        case .checksum(let sum): return "\(sum) (as archived now)"
        case .unavailable(let why): return "not available: \(why)"
        }
    }

    /// The outcome record's result and message.
    static func outcomeText(_ outcome: AuditRecord?) -> String {
        guard let outcome else { return "not recorded" }
        return outcome.result.rawValue + (outcome.message.map { ": \($0)" } ?? "")
    }

    /// One fact per step of a list (`beforeWrite[0]` — `1536 := 6868 ok`).
    static func steps(_ name: String, _ steps: [StepResult]?) -> [CertificateFact] {
        (steps ?? []).enumerated().map { i, step in
            var text = "\(step.address) := \(step.value) \(step.status.rawValue)"
            if let readBack = step.readBack { text += ", read back \(readBack)" }
            if let message = step.message { text += " (\(message))" }
            return CertificateFact("\(name)[\(i)]", text)
        }
    }

    /// What the job's records do not tell, each said once.
    static func notRecorded(intent: AuditRecord?, outcome: AuditRecord?, rows: [CertificateRow], source: CertificateSource)
        -> [String]
    {
        var missing: [String] = []
        let signature = (outcome ?? intent).flatMap { Self.signed($0, intent) }
        if signature?.reason == nil { missing.append("No reason for the write is recorded.") }
        if signature?.approvals?.isEmpty ?? true {
            missing.append("No approval is recorded (the page is not under change control, or this record predates it).")
        }
        if intent == nil { missing.append("The job's intent (its start, before the first write) is not in the audit log.") }
        if outcome == nil { missing.append("The job's outcome is not in the audit log: no register is known to have taken.") }
        if outcome != nil && outcome?.templateVersionId == nil {
            missing.append("The record names the version by number only (written before version ids were recorded).")
        }
        if case .unavailable(let why) = source.templateFile {
            missing.append("The template file's checksum cannot be given: \(why).")
        }
        let unread = rows.filter { $0.asFound == "not recorded" }.map(\.registerId)
        if !unread.isEmpty { missing.append("No value as found is recorded for: \(unread.joined(separator: ", ")).") }
        return missing
    }

    /// How to check the signature offline.
    static func verification(_ signer: CertificateSigner?, job: String) -> [String] {
        guard let signer else { return [] }
        let file = CertificateFormat.pdf.fileName(job: job)
        return [
            "Each file of this certificate (.pdf, .html) has a detached SSH signature beside it (.sig), made with "
                + "ssh-keygen -Y sign in the namespace \(signer.namespace).",
            "allowed_signers line: \(signer.allowedSignersLine)",
            "Check: \(signer.verifyCommand(file))",
        ]
    }
}
