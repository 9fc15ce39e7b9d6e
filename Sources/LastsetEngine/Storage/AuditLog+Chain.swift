import Foundation
import LastsetCore
import LastsetStore

extension AuditLog {
    /// Checks the whole hash chain (every record and retention's links, against the head kept); when it finds a
    /// break nobody acknowledged, marks the chain broken (durable), so that nothing more is written until an
    /// administrator acknowledges it. Run at every start and by `lastset audit verify`.
    public func verifyChain(published: [AuditChainHead] = []) async throws(StorageError) -> AuditChainReport {
        do {
            let report = try await AuditChainStore.verify(database, published: published)
            if let first = report.findings.first {
                let more = report.findings.count > 1 ? " (and \(report.findings.count - 1) more)" : ""
                try await AuditChainStore.markBroken(first.description + more, database)
            }
            return report
        } catch {
            throw StorageError.of(error, database.path)
        }
    }

    /// The head the daemon wrote last (nil before the first record).
    public func chainHead() async throws(StorageError) -> AuditChainHead? {
        do {
            return try await database.read { c in try AuditChainStore.state(c)?.head }.flatMap { $0 == .empty ? nil : $0 }
        } catch {
            throw StorageError.of(error, database.path)
        }
    }

    /// Whether writing is refused because the chain was found broken (what was found), nil when it is not.
    public func chainBroken() async throws(StorageError) -> String? {
        do {
            return try await database.read { c in try AuditChainStore.state(c)?.broken }
        } catch {
            throw StorageError.of(error, database.path)
        }
    }

    /// An administrator's acknowledgment of a broken chain: checks the chain again and records a
    /// `chain-acknowledged` record naming what was found and `reason`; it follows the last record as it is, clears
    /// the broken mark, and the daemon writes again. Refused (nothing recorded) when the chain is intact, or without
    /// a reason.
    public func acknowledgeChain(
        who: String, reason: String, published: [AuditChainHead] = [], now: Date = Date()
    ) async throws(AuditChainAcknowledgeError) -> AuditRecord {
        let trimmed = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .noReason }
        let report: AuditChainReport
        do {
            report = try await AuditChainStore.verify(database, published: published)
        } catch {
            throw .storage(StorageError.of(error, database.path))
        }
        let marked: String?
        do {
            marked = try await chainBroken()
        } catch {
            throw .storage(error)
        }
        guard !report.intact || marked != nil else { throw .intact }
        let found = report.findings.map(\.description) + (report.intact ? [marked ?? ""] : [])
        let record = AuditRecord(
            time: now, kind: .chainAcknowledged, who: who, pageId: "", device: "", endpoint: "", unit: 0, identity: [],
            templateVersion: nil, pageHash: "", result: .archived,
            message: "acknowledged \(found.count) break\(found.count == 1 ? "" : "s") of the audit chain: "
                + found.joined(separator: "; ") + ". Reason: " + trimmed,
            registers: [])
        do {
            try await append(record)
        } catch {
            throw .storage(error)
        }
        return record
    }
}

/// Why an acknowledgment of the audit chain was not recorded.
public enum AuditChainAcknowledgeError: Error, Sendable, CustomStringConvertible {
    /// No reason given: an acknowledgment must say why.
    case noReason
    /// The chain is intact and not marked broken: there is nothing to acknowledge.
    case intact
    /// The database could not be read or written.
    case storage(StorageError)

    public var description: String {
        switch self {
        case .noReason: return "an acknowledgment of the audit chain needs a reason"
        case .intact: return "the audit chain is intact: there is nothing to acknowledge"
        case .storage(let e): return e.description
        }
    }
}
