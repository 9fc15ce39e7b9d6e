import Foundation
import LastsetCore

/// "Save": reads a page fresh from the reference device, validates it and archives it as a template.
public enum Capture {
    /// Reads, validates and (only when every register is valid) archives the page. `record` makes the audit
    /// record of an archived capture from the stored template: the version and that record are one commit, so
    /// a capture whose record cannot be committed archives nothing (and says so).
    public static func run(
        page: CompiledPage, from target: DeviceTarget, archive: TemplateArchive, who: String,
        progress: ProgressHandler? = nil, record: (@Sendable (Template) -> AuditRecord)? = nil
    ) async -> (report: CaptureReport, template: Template?) {
        let identity = page.identity
        let pageHash = page.hash
        let spans =
            page.registers.map(\.span)
            + identity.map { AddressSpan(address: $0.address, length: $0.type.registerCount) }
        progress?(JobProgress(phase: .reading, done: 0, total: page.registers.count))
        let readout = await PageReader.read(spans, from: target)
        // Templates keep times to the millisecond: round now so the template in memory equals the one on disk.
        let readAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded() / 1000)
        progress?(JobProgress(phase: .reading, done: page.registers.count, total: page.registers.count))

        var report = CaptureReport(
            pageId: page.id, device: target.label, archived: false, version: nil, pageHash: pageHash, entryCount: 0,
            skipped: [], problems: [], requests: readout.requests, error: nil)
        if Task.isCancelled {
            report.error = "capture cancelled (shutdown) before all registers were read"
            return (report, nil)
        }

        var identityValues = identityValues(identity, from: readout, into: &report)
        if !page.identityObjects.isEmpty {
            let (values, problems, requests) = await identityObjectValues(page.identityObjects, from: target)
            identityValues += values
            report.problems += problems
            report.requests += requests
        }
        let entries = entries(of: page, from: readout, readAt: readAt, into: &report)
        report.entryCount = entries.count
        guard report.problems.isEmpty else { return (report, nil) }

        let template = Template(
            pageId: page.id, pageHash: pageHash, version: 0, capturedAt: readAt, capturedBy: who,
            source: TemplateSource(
                deviceId: target.deviceId, endpoint: target.endpoint.description, unit: target.unit, identity: identityValues),
            entries: entries, skipped: report.skipped)
        let stored = await store(template, of: page, in: archive, record: record, into: &report)
        return (report, stored)
    }

    /// The identity registers' values; a read that failed is a problem.
    private static func identityValues(
        _ identity: [IdentityRegister], from readout: PageReadout, into report: inout CaptureReport
    ) -> [RecordedValue] {
        var values: [RecordedValue] = []
        for reg in identity {
            let span = AddressSpan(address: reg.address, length: reg.type.registerCount)
            guard let words = readout.words(for: span) else {
                report.problems.append(
                    CaptureProblem(
                        registerId: reg.registerId, address: reg.address, valueData: nil, value: nil,
                        rule: "identity read failed: \(readout.failure(for: span).map(String.init(describing:)) ?? "no data")",
                        cause: .identityReadFailed))
                continue
            }
            values.append(
                RecordedValue(
                    registerId: reg.registerId, address: reg.address, valueData: words.bigEndianBytes.hexString,
                    value: RegisterCodec.decode(words, as: reg.definition)))
        }
        return values
    }

    /// The template's entries: each register read and archivable; one that is not is skipped (with the reason) or a
    /// problem (its read failed, or it breaks its rule).
    private static func entries(
        of page: CompiledPage, from readout: PageReadout, readAt: Date, into report: inout CaptureReport
    ) -> [TemplateEntry] {
        var entries: [TemplateEntry] = []
        for register in page.registers {
            let def = register.definition
            let span = register.span
            guard let words = readout.words(for: span) else {
                let cause = readout.failure(for: span).map(String.init(describing:)) ?? "no data"
                report.problems.append(
                    CaptureProblem(
                        registerId: def.registerId, address: def.address, valueData: nil, value: nil,
                        rule: "read failed: \(cause)", cause: .readFailed))
                continue
            }
            let hex = words.bigEndianBytes.hexString
            switch RegisterClassifier.classify(words, register) {
            case .skip(let reason):
                report.skipped.append(SkippedRegister(registerId: def.registerId, address: def.address, reason: reason))
                continue
            case .invalid(let rule):
                report.problems.append(
                    CaptureProblem(
                        registerId: def.registerId, address: def.address, valueData: hex,
                        value: RegisterCodec.decode(words, as: def), rule: rule.description))
                continue
            case .archive:
                break
            }
            entries.append(TemplateEntry(register: register, words: words, lastDate: readAt))
        }
        return entries
    }

    /// Archives the template when it fits its own page and differs from the latest version; the report says what
    /// happened. Returns the stored template, or nil when nothing was archived.
    private static func store(
        _ template: Template, of page: CompiledPage, in archive: TemplateArchive,
        record: (@Sendable (Template) -> AuditRecord)?, into report: inout CaptureReport
    ) async -> Template? {
        // The one admission decision, as every import and replay makes it: what is archived fits the page it
        // was read from (a capture that did not would be a defect here, refused rather than archived).
        let admission = TemplateAdmission.admit(template, to: page, localHost: nil)
        guard admission.isAdmissible, admission.leftOut.isEmpty else {
            report.error = "the capture does not fit its own page, nothing archived: \(admission.refusalText)"
            return nil
        }
        // The same content as the latest version is not a new version: history stays meaningful.
        if let latest = try? await archive.load(pageId: page.id), TemplateComparison.sameContent(template, as: latest) {
            report.unchanged = true
            report.version = latest.version
            report.versionId = latest.versionId.id
            return nil
        }
        do {
            let stored = try await archive.store(template, record: record)
            report.archived = true
            report.version = stored.version
            report.versionId = stored.versionId.id
            return stored
        } catch {
            report.error = "cannot archive the capture or record it, nothing archived: \(error)"
            return nil
        }
    }

    /// The identification objects' values (FC43/14), recorded in the template's source identity as `fc43:<name>`;
    /// an object the device does not have, or a failed read, is a problem: nothing is archived.
    static func identityObjectValues(_ objects: [IdentityObject], from target: DeviceTarget) async -> (
        [RecordedValue], [CaptureProblem], Int
    ) {
        let (read, requests) = await IdentificationReader.read(objects, from: target)
        var values: [RecordedValue] = []
        var problems: [CaptureProblem] = []
        for object in objects {
            let rule: String
            switch read {
            case .success(let identification):
                if let found = identification.object(object.object) {
                    values.append(object.recorded(found))
                    continue
                }
                rule = "identity object \(object.object): the device has no such identification object"
            case .failure(let error):
                rule = "identity read failed: \(error)"
            }
            problems.append(
                CaptureProblem(
                    registerId: object.recordedId, address: Int(object.object.rawValue), valueData: nil, value: nil, rule: rule,
                    cause: .identityReadFailed))
        }
        return (values, problems, requests)
    }

}
