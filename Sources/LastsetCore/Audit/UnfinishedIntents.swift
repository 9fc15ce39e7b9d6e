import Foundation

/// What the import of a data directory written by the release before `lastset.db` records for an intent left
/// without its outcome (issue 20). That release wrote a capture's, import's, promote's or delete's `started`
/// record, then changed the archive, then wrote the outcome record: a daemon stopped between the last two left
/// the change made and only the `started` record. In the database the change and its record are one commit,
/// so this happens no more; the import accounts for the ones already there, once, from what the archive holds:
///
/// - a capture, import or promote intent is paired with a version of this host that no audit record names and
///   that it made: the same page, source (endpoint, unit, identity) and page hash, captured no later than the
///   intent (capture, import; a capture's version has no provenance), or a copy of the version the promote named
///   (its provenance). Intents are taken
///   oldest first, each given the lowest-numbered such version not already given. Paired: an `archived` record
///   naming the version. Unpaired: a `failed` record — no version it may have made is in the archive;
/// - a delete intent: `deleted` when its version is gone, `failed` (nothing deleted) when it is still there.
///
/// Each outcome carries the intent's job (so it folds the intent away), its time and principal, and says that
/// it was recorded by the import. Replay and dry-run intents are not judged here: their journals are (start-up
/// recovery, as for any replay the daemon did not finish).
public enum UnfinishedIntents {
    /// Where the message says the outcome came from.
    public static let note = "recorded when the data directory was imported into lastset.db"

    /// The outcome records of `intents` (`started` records of a capture, import, promote or delete without a
    /// later record of their job; others are ignored), given the page's local versions no audit record names
    /// (`unrecorded`) and, for deletes, whether the version each names is still archived (`isArchived`, by page
    /// and version id).
    public static func outcomes(
        of intents: [AuditRecord], unrecorded: [Template], isArchived: (_ pageId: String, _ versionId: String) -> Bool
    ) -> [AuditRecord] {
        var given = Set<String>()
        var out: [AuditRecord] = []
        let versions = unrecorded.sorted { ($0.pageId, $0.version) < ($1.pageId, $1.version) }
        for intent in intents.sorted(by: { $0.time < $1.time }) where intent.result == .started && intent.job != nil {
            var outcome = intent
            switch intent.kind {
            case .capture, .import, .promote:
                let made = versions.first { v in
                    !given.contains(key(v)) && v.pageId == intent.pageId && madeBy(intent, v)
                }
                if let v = made {
                    given.insert(key(v))
                    outcome.result = .archived
                    outcome.templateVersion = v.version
                    outcome.templateVersionId = v.versionId.id
                    let status: AuditRegisterStatus = intent.kind == .import ? .imported : .captured
                    outcome.registers = v.entries.map {
                        AuditRegister(registerId: $0.registerId, before: nil, after: $0.value, status: status)
                    }
                    outcome.message =
                        "archived as version \(v.versionId.id); the daemon stopped before this outcome was recorded (\(note))"
                } else {
                    outcome.result = .failed
                    outcome.registers = []
                    outcome.message =
                        "the daemon stopped before this \(intent.kind.rawValue)'s outcome was recorded, and no version it may have made is in the archive: nothing archived by it remains (\(note))"
                }
            case .delete:
                guard let id = intent.templateVersionId ?? intent.templateVersion.map(String.init) else { continue }
                if isArchived(intent.pageId, id) {
                    outcome.result = .failed
                    outcome.message =
                        "the daemon stopped before version \(id) was deleted: nothing deleted (\(note))"
                } else {
                    outcome.result = .deleted
                    outcome.message =
                        "deleted version \(id); the daemon stopped before this outcome was recorded (\(note))"
                }
            case .replay, .dryRun, .retention, .chainAcknowledged, .fleetRepair, .pageDefinition, .changeRequest, .approval, .backup:
                continue
            }
            out.append(outcome)
        }
        return out
    }

    private static func key(_ v: Template) -> String { v.pageId + "\u{0}" + v.versionId.id }

    /// Whether `version` is what the capture, import or promote of `intent` archived.
    static func madeBy(_ intent: AuditRecord, _ v: Template) -> Bool {
        switch intent.kind {
        case .promote:
            guard let source = intent.templateVersionId ?? intent.templateVersion.map(String.init) else { return false }
            return v.provenance?.hasPrefix("promoted from version \(source) ") ?? false
        case .capture, .import:
            // A capture's version carries no provenance (a promote's copy does).
            if intent.kind == .capture && v.provenance != nil { return false }
            return v.source.endpoint == intent.endpoint && v.source.unit == intent.unit
                && v.source.identity == intent.identity && v.pageHash == intent.pageHash && v.capturedAt <= intent.time
        case .replay, .dryRun, .delete, .retention, .chainAcknowledged, .fleetRepair, .pageDefinition, .changeRequest, .approval, .backup:
            return false
        }
    }
}
