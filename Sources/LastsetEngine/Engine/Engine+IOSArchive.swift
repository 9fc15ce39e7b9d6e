import Foundation
import LastsetCore

/// What `Engine.importIOSArchive` refuses: the archive's problems, or a failure to audit or store.
public enum IOSImportError: Error, Sendable, CustomStringConvertible {
    /// The archive does not give a valid template of the page (every problem named).
    case invalid(IOSArchiveError)
    /// The template could not be archived.
    case archive(ArchiveError)

    /// One line per problem.
    public var description: String {
        switch self {
        case .invalid(let e):
            return "the iOS archive cannot be imported (\(e.problems.count) problem\(e.problems.count == 1 ? "" : "s")):\n"
                + e.description
        case .archive(let e): return e.description
        }
    }
}

extension Engine {
    /// Archives a legacy iOS app archive as the page's next version. The archive is mapped and validated
    /// first (`IOSArchive.template`); the audit record is written before the template is archived, and
    /// when it cannot be written nothing is archived. `identity` replaces the identity values the archive
    /// does not hold; `identityNote` says where they came from.
    public func importIOSArchive(
        _ bytes: [UInt8], file: String, into page: CompiledPage, identity: [RecordedValue], identityNote: String?,
        who: String, now: Date = Date()
    ) async throws(IOSImportError) -> Template {
        let template: Template
        do {
            template = try IOSArchive.template(
                archive: bytes, page: page, identity: identity, file: file, who: who, importedAt: now,
                identityNote: identityNote)
        } catch {
            throw .invalid(error)
        }
        // The one admission decision every import makes (the archive was mapped onto this very page, so a
        // refusal here is a mapping defect, refused rather than archived).
        let admission = TemplateAdmission.admit(template, to: page, localHost: nil)
        guard admission.isAdmissible, admission.leftOut.isEmpty else {
            throw .archive(.notAdmissible(pageId: page.id, admission.refusals + admission.leftOut))
        }
        let job = UUID().uuidString
        @Sendable func record(_ result: AuditResult, version: Int?, message: String) -> AuditRecord {
            AuditRecord(
                time: Date(), kind: .import, who: who, pageId: page.id, device: template.source.endpoint,
                endpoint: template.source.endpoint, unit: template.source.unit, identity: template.source.identity,
                templateVersion: version, pageHash: template.pageHash, result: result, message: message,
                registers: template.entries.map {
                    AuditRegister(registerId: $0.registerId, before: nil, after: $0.value, status: .imported)
                }, job: job)
        }
        let provenance = template.provenance ?? "imported from iOS archive \(file)"
        do {
            // The version and its record: one commit.
            return try await archive.store(template) { stored in
                record(.archived, version: stored.version, message: provenance)
            }
        } catch {
            // Nothing archived and the answer says so, as the failure's own record does (or the answer says that
            // record is missing too).
            throw .archive(await recordFailedImport(record(.failed, version: nil, message: "\(provenance); \(error)"), error))
        }
    }

    /// Reads the page's identity registers from a device (for an import whose archive holds none).
    public func readIdentity(of page: CompiledPage, from target: DeviceTarget) async -> Result<[RecordedValue], ReadError> {
        let identity = page.identity
        let spans = identity.map { AddressSpan(address: $0.address, length: $0.type.registerCount) }
        let readout = await PageReader.read(spans, from: target)
        var values: [RecordedValue] = []
        for (reg, span) in zip(identity, spans) {
            guard let words = readout.words(for: span) else {
                let cause = readout.failures[span].map(String.init(describing:)) ?? "no data"
                return .failure(
                    ReadError(message: "cannot read identity register \"\(reg.registerId)\" from \(target.label): \(cause)"))
            }
            values.append(
                RecordedValue(
                    registerId: reg.registerId, address: reg.address, valueData: words.bigEndianBytes.hexString,
                    value: RegisterCodec.decode(words, as: reg.definition)))
        }
        return .success(values)
    }
}

/// A device read that failed, with the register and the cause.
public struct ReadError: Error, Sendable, CustomStringConvertible {
    /// What could not be read, and why.
    public var message: String
    /// The message.
    public var description: String { message }
}
