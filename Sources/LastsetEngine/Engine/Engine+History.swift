import Foundation
import LastsetCore
import LastsetFormats

/// Why a history operation (promote, delete) did nothing.
public enum HistoryError: Error, Sendable, CustomStringConvertible {
    /// Nothing was changed (the archive's error; `.storage` when the change and its record could not be
    /// committed).
    case archive(ArchiveError)
    /// Promote: the version is already the latest.
    case alreadyLatest(pageId: String, versionId: String)
    /// Delete: devices are recorded as holding the version (force to delete anyway).
    case inUse(pageId: String, versionId: String, devices: [String])
    /// Promote: another fleet host's version captured against another definition of the page than this host's (the
    /// copy would be this host's version, written here under a definition it was not captured against).
    case otherDefinition(String)

    public var description: String {
        switch self {
        case .archive(let e): return e.description
        case .alreadyLatest(let p, let v): return "version \(v) is already the latest of page \"\(p)\""
        case .inUse(let p, let v, let d):
            return
                "version \(v) of page \"\(p)\" is what \(d.joined(separator: ", ")) \(d.count == 1 ? "is" : "are") recorded as holding; give force to delete it anyway"
        case .otherDefinition(let why): return "not promoted: \(why)"
        }
    }
}

extension Engine {
    /// Makes an older version the latest again: archives its content as the next version, with a note of
    /// where it came from. The new version and its audit record are one commit: both or neither. `reason` (the
    /// operator's why) ends the record's message, which a fleet carries to every host (`FleetRecord`).
    public func promote(page: CompiledPage, version ref: TemplateVersionRef, who: String, reason: String? = nil)
        async throws(HistoryError) -> Template
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
        // Another host's version is written here only under the definition it was captured against: its copy would
        // be this host's own version and pass that rule (`TemplateAdmission`).
        if let why = TemplateAdmission.admit(source, to: page, localHost: archive.host).definitionText {
            throw .otherDefinition(why)
        }
        let record = historyRecord(
            .promote, page: page.id, template: source, who: who,
            message: "promoting version \(source.versionId.id) (latest is \(latest.versionId.id))")
        var copy = source
        copy.provenance =
            "promoted from version \(source.versionId.id) (captured \(TimeText.iso8601(source.capturedAt))"
            + (source.provenance.map { "; \($0)" } ?? "") + ")"
        do {
            return try await archive.store(copy) { stored in
                var archived = record
                archived.time = Date()
                archived.result = .archived
                archived.templateVersion = stored.version
                archived.templateVersionId = stored.versionId.id
                archived.message =
                    "promoted version \(source.versionId.id) as version \(stored.versionId.id)" + (reason.map { ": \($0)" } ?? "")
                return archived
            }
        } catch {
            // Nothing archived and nothing recorded: the failure is recorded alone (when it can be).
            var failed = record
            failed.result = .failed
            failed.message = "promoting version \(source.versionId.id) failed: \(error)"
            failed.time = Date()
            do {
                try await audit.append(failed)
            } catch let auditError {
                throw .archive(.failureUnaudited(error, auditError))
            }
            throw .archive(error)
        }
    }

    /// Deletes a version. Refused while a device is recorded as holding it, unless `force`. The removal (its
    /// number kept as a deleted marker) and its audit record are one commit: both or neither. A corrupt version
    /// can be deleted. `reason` (the operator's why) ends the record's message, which a fleet carries to every host
    /// as the version's tombstone (`FleetRecord`).
    public func deleteVersion(
        page: CompiledPage, version ref: TemplateVersionRef, force: Bool, who: String, reason: String? = nil
    ) async throws(HistoryError) -> VersionDeletion
    {
        let version: TemplateVersion
        do {
            version = try await archive.resolveVersion(pageId: page.id, ref)
        } catch {
            throw .archive(error)
        }
        let holders: [String]
        do {
            holders = try await deviceState.holders(pageId: page.id, versionId: version.id)
        } catch {
            throw .archive(.storage(error))
        }
        guard holders.isEmpty || force else { throw .inUse(pageId: page.id, versionId: version.id, devices: holders) }
        // A corrupt version has no source to name: the record says what it can.
        let loaded: Template?
        do {
            loaded = try await archive.load(pageId: page.id, version: ref)
        } catch {
            loaded = nil
        }
        let forced = holders.isEmpty ? "" : " (forced: held by \(holders.joined(separator: ", ")))"
        let record = AuditRecord(
            time: Date(), kind: .delete, who: who, pageId: page.id, device: "-", endpoint: "-",
            unit: loaded?.source.unit ?? 0, identity: loaded?.source.identity ?? [], templateVersion: version.number,
            pageHash: loaded?.pageHash ?? "", result: .deleted,
            message: "deleted version \(version.id)\(forced)" + (reason.map { ": \($0)" } ?? ""),
            registers: [], job: UUID().uuidString, templateVersionId: version.id)
        do {
            _ = try await archive.remove(pageId: page.id, version: ref) { _ in
                var deleted = record
                deleted.time = Date()
                return deleted
            }
        } catch {
            var failed = record
            failed.time = Date()
            failed.result = .failed
            failed.message = "deleting version \(version.id) failed: \(error)"
            do {
                try await audit.append(failed)
            } catch let auditError {
                throw .archive(.failureUnaudited(error, auditError))
            }
            throw .archive(error)
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
