import Foundation
import LastsetCore

/// The template engine: capture, archive, replay, each recorded in the audit log.
public struct Engine: Sendable {
    public let archive: TemplateArchive
    public let audit: AuditLog

    /// Opens the archive and audit log under the data directory.
    public init(dataDirectory: URL, historyLimit: Int = 20) throws {
        archive = try TemplateArchive(dataDirectory: dataDirectory, historyLimit: historyLimit)
        audit = try AuditLog(dataDirectory: dataDirectory)
    }

    /// Captures a page from a device; audits the attempt whatever its outcome.
    public func capture(page: CompiledPage, from target: DeviceTarget, who: String, progress: ProgressHandler? = nil) async
        -> CaptureReport
    {
        var (report, stored) = await Capture.run(page: page, from: target, archive: archive, who: who, progress: progress)
        var identity: [IdentityValue] = []
        var registers: [AuditRegister] = []
        if let t = stored {
            identity = t.source.identity
            registers = t.entries.map {
                AuditRegister(registerId: $0.registerId, before: nil, after: $0.value, status: "captured")
            }
        }
        registers += report.problems.map {
            AuditRegister(registerId: $0.registerId, before: nil, after: $0.value, status: "invalid: \($0.rule)")
        }
        let record = AuditRecord(
            time: Date(), kind: "capture", who: who, pageId: page.id, device: target.label, endpoint: target.endpoint.description,
            unit: target.unit, identity: identity, templateVersion: report.version, pageHash: report.pageHash,
            result: report.archived ? "archived" : (report.error != nil ? "failed" : "invalid"), message: report.error,
            registers: registers)
        do {
            try await audit.append(record)
        } catch {
            report.error = (report.error.map { $0 + "; " } ?? "") + "audit log: \(error)"
        }
        return report
    }

    /// Replays the page's latest template (or `version`) to a target; audits it.
    /// Throws only when the template cannot be loaded (missing, corrupt).
    public func apply(
        page: CompiledPage, version: Int? = nil, to target: DeviceTarget, options: ReplayOptions, who: String,
        progress: ProgressHandler? = nil
    ) async throws(ArchiveError) -> ReplayReport {
        let template = try await archive.load(pageId: page.id, version: version)
        return await apply(page: page, template: template, to: target, options: options, who: who, progress: progress)
    }

    /// Replays an already loaded template to a target; audits it.
    public func apply(
        page: CompiledPage, template: Template, to target: DeviceTarget, options: ReplayOptions, who: String,
        progress: ProgressHandler? = nil
    ) async -> ReplayReport {
        var report = await Replay.run(page: page, template: template, to: target, options: options, progress: progress)
        let record = AuditRecord(
            time: Date(), kind: options.dryRun ? "dry-run" : "replay", who: who, pageId: page.id, device: target.label,
            endpoint: target.endpoint.description, unit: target.unit, identity: template.source.identity,
            templateVersion: template.version, pageHash: template.pageHash, result: report.status.rawValue,
            message: Optional(
                [report.reason, report.stoppedAt.map { "stopped \($0)" }].compactMap { $0 }.joined(separator: "; ")
            )
            .flatMap { $0.isEmpty ? nil : $0 },
            registers: report.registers.map {
                AuditRegister(registerId: $0.registerId, before: $0.before, after: $0.actual, status: $0.status.rawValue)
            })
        do {
            try await audit.append(record)
        } catch {
            report.warnings.append("audit log: \(error)")
        }
        return report
    }

    /// Archives a template file brought from another site as the page's next version; the file must be
    /// a valid template of this page (checked before anything is written). Audited.
    public func importTemplate(_ data: Data, into page: CompiledPage, who: String) async throws(ArchiveError) -> Template {
        let template: Template
        do {
            template = try TemplateFile.decode(data)
        } catch {
            throw .invalidImport(error.reason)
        }
        guard template.pageId == page.id else {
            throw .wrongPage(expected: page.id, found: template.pageId)
        }
        // The same verdicts as a capture: an entry a capture would not have archived is refused.
        for entry in template.entries {
            guard let register = page.register(entry.registerId) else {
                throw .invalidImport("\(entry.registerId): not a register of page \"\(page.id)\"")
            }
            guard register.address == entry.address, register.length == entry.length else {
                throw .invalidImport(
                    "\(entry.registerId): template has address \(entry.address) length \(entry.length), page has \(register.address) length \(register.length)"
                )
            }
            let verdict = RegisterClassifier.classify(entry.words, register)
            guard verdict == .archive else { throw .invalidImport("\(entry.registerId): \(verdict)") }
        }
        let stored: Template
        var notDurable: ArchiveError?
        do {
            stored = try await archive.store(template)
        } catch {
            guard case .notDurable(let inPlace, _) = error else { throw error }
            (stored, notDurable) = (inPlace, error)
        }
        let record = AuditRecord(
            time: Date(), kind: "import", who: who, pageId: page.id, device: template.source.deviceId ?? template.source.endpoint,
            endpoint: template.source.endpoint, unit: template.source.unit, identity: template.source.identity,
            templateVersion: stored.version, pageHash: template.pageHash, result: "archived",
            message: "imported (captured \(TimeText.iso8601(template.capturedAt)) as version \(template.version))"
                + (template.pageHash == page.hash ? "" : "; captured against another page definition")
                + (notDurable.map { "; \($0)" } ?? ""),
            registers: template.entries.map {
                AuditRegister(registerId: $0.registerId, before: nil, after: $0.value, status: "imported")
            })
        try? await audit.append(record)
        if let notDurable { throw notDurable }
        return stored
    }
}
