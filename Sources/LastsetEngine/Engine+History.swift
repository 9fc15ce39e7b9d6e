import Foundation
import LastsetCore

/// Why a history operation (promote, delete) did nothing.
public enum HistoryError: Error, Sendable, CustomStringConvertible {
    case archive(ArchiveError)
    /// The audit record could not be written: nothing was changed.
    case audit(StorageError)
    /// The change was made (`done` says what: "promoted … as version N", "deleted version N"), but the audit
    /// record of its outcome could not be written after it: the log holds its "started" record only.
    case unaudited(done: String, StorageError)
    /// Promote: the version is already the latest.
    case alreadyLatest(pageId: String, versionId: String)
    /// Delete: devices are recorded as holding the version (force to delete anyway).
    case inUse(pageId: String, versionId: String, devices: [String])

    public var description: String {
        switch self {
        case .archive(let e): return e.description
        case .audit(let e): return "cannot write the audit record, nothing changed: \(e)"
        case .unaudited(let done, let e):
            return "\(done), but its audit record could not be written (\(e)): the audit log shows it as started only"
        case .alreadyLatest(let p, let v): return "version \(v) is already the latest of page \"\(p)\""
        case .inUse(let p, let v, let d):
            return
                "version \(v) of page \"\(p)\" is what \(d.joined(separator: ", ")) \(d.count == 1 ? "is" : "are") recorded as holding; give force to delete it anyway"
        }
    }
}

extension Engine {
    /// Makes an older version the latest again: archives its content as the next version, with a note of
    /// where it came from. Audited (intent first: no record, nothing archived).
    public func promote(page: CompiledPage, version ref: TemplateVersionRef, who: String) async throws(HistoryError)
        -> Template
    {
        let source: Template
        let latest: Template
        do {
            source = try await archive.load(pageId: page.id, version: ref)
            latest = try await archive.load(pageId: page.id)
        } catch {
            throw .archive(error)
        }
        guard source.versionId != latest.versionId else {
            throw .alreadyLatest(pageId: page.id, versionId: source.versionId.id)
        }
        var record = historyRecord(
            .promote, page: page.id, template: source, who: who,
            message: "promoting version \(source.versionId.id) (latest is \(latest.versionId.id))")
        do {
            try await audit.append(record)
        } catch {
            throw .audit(error)
        }
        var copy = source
        copy.provenance =
            "promoted from version \(source.versionId.id) (captured \(TimeText.iso8601(source.capturedAt))"
            + (source.provenance.map { "; \($0)" } ?? "") + ")"
        let stored: Template
        var note = ""
        do {
            stored = try await archive.store(copy)
        } catch {
            guard case .notDurable(let inPlace, _) = error else {
                record.result = .failed
                record.message = "promoting version \(source.versionId.id) failed: \(error)"
                record.time = Date()
                // Nothing archived and the answer says so; without this record the "started" one stays,
                // which claims no new version.
                try? await audit.append(record)
                throw .archive(error)
            }
            (stored, note) = (inPlace, "; \(error)")
        }
        record.time = Date()
        record.result = .archived
        record.templateVersion = stored.version
        record.templateVersionId = stored.versionId.id
        record.message = "promoted version \(source.versionId.id) as version \(stored.versionId.id)" + note
        do {
            try await audit.append(record)
        } catch {
            // The new version is in place: say so (never "nothing changed").
            throw .unaudited(done: record.message ?? "promoted", error)
        }
        return stored
    }

    /// Deletes a version. Refused while a device is recorded as holding it, unless `force`. Audited (intent
    /// first: no record, nothing deleted). A corrupt version can be deleted.
    public func deleteVersion(page: CompiledPage, version ref: TemplateVersionRef, force: Bool, who: String)
        async throws(HistoryError) -> VersionDeletion
    {
        let version: TemplateVersion
        do {
            version = try await archive.resolveVersion(pageId: page.id, ref)
        } catch {
            throw .archive(error)
        }
        let holders = await deviceState.holders(pageId: page.id, versionId: version.id)
        guard holders.isEmpty || force else { throw .inUse(pageId: page.id, versionId: version.id, devices: holders) }
        let loaded = try? await archive.load(pageId: page.id, version: ref)
        let forced = holders.isEmpty ? "" : " (forced: held by \(holders.joined(separator: ", ")))"
        var record = AuditRecord(
            time: Date(), kind: .delete, who: who, pageId: page.id, device: "-", endpoint: "-",
            unit: loaded?.source.unit ?? 0, identity: loaded?.source.identity ?? [], templateVersion: version.number,
            pageHash: loaded?.pageHash ?? "", result: .started, message: "deleting version \(version.id)\(forced)",
            registers: [], job: UUID().uuidString, templateVersionId: version.id)
        do {
            try await audit.append(record)
        } catch {
            throw .audit(error)
        }
        do {
            _ = try await archive.remove(pageId: page.id, version: ref)
        } catch {
            record.time = Date()
            record.result = .failed
            record.message = "deleting version \(version.id) failed: \(error)"
            // Nothing deleted and the answer says so; without this record the "started" one stays.
            try? await audit.append(record)
            throw .archive(error)
        }
        record.time = Date()
        record.result = .deleted
        record.message = "deleted version \(version.id)\(forced)"
        do {
            try await audit.append(record)
        } catch {
            // The version is gone: say so (never "nothing changed").
            throw .unaudited(done: record.message ?? "deleted", error)
        }
        let latest = try? await archive.resolveVersion(pageId: page.id, .latest)
        return VersionDeletion(pageId: page.id, versionId: version.id, heldBy: holders, latestVersion: latest?.id)
    }

    private func historyRecord(_ kind: AuditKind, page: String, template: Template, who: String, message: String)
        -> AuditRecord
    {
        AuditRecord(
            time: Date(), kind: kind, who: who, pageId: page, device: template.source.deviceId ?? template.source.endpoint,
            endpoint: template.source.endpoint, unit: template.source.unit, identity: template.source.identity,
            templateVersion: template.version, pageHash: template.pageHash, result: .started, message: message,
            registers: template.entries.map {
                AuditRegister(registerId: $0.registerId, before: nil, after: $0.value, status: .captured)
            }, job: UUID().uuidString, templateVersionId: template.versionId.id)
    }
}
