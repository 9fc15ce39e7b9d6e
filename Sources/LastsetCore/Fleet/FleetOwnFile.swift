import Foundation

/// A re-clone's check of one of this host's own files on the hub (a version, a delete or promote record, its audit
/// file): only this host writes its names, so the hub's copy must be what this host wrote — the same bytes as its
/// archive (a version), as its audit log makes (a record), or as its old repository holds. An audit file may be
/// shorter than the old repository's (records not pushed yet: the next sync appends them), never different.
public enum FleetOwnFile {
    /// Where the bytes the hub's copy is compared with came from.
    public enum Source: String, Codable, Sendable, Hashable {
        /// The version as this host's archive holds it.
        case archive
        /// The record this host's audit log makes of the delete or promote.
        case auditLog = "audit log"
        /// The file in the repository that was moved aside.
        case oldRepository = "old repository"
    }

    /// What the check decided.
    public enum Verdict: Sendable, Hashable {
        /// The hub's copy is what this host wrote.
        case matches(Source)
        /// Accepted without a comparison: nothing here holds the file any more (a version pruned from the archive
        /// or deleted here, and no readable old copy). The note says so in the repair's report.
        case unchecked(String)
        /// Refused: the hub's copy is not what this host wrote.
        case refused(FleetRefusal)
    }

    /// Judges the hub's copy of `path` (`hub`) against the first evidence there is, in the order given
    /// (`evidence`: archive or audit log first, then the old repository). `appendOnly` (the audit file): the
    /// hub's copy may be a prefix of the evidence. `neverMade`: a version number above any this host handed out.
    public static func judge(
        path: String, hub: Data, evidence: [(Data, Source)], appendOnly: Bool = false, neverMade: Bool = false
    ) -> Verdict {
        if neverMade {
            return .refused(
                FleetRefusal(path: path, rule: .ownNamespace, reason: "a version in this host's namespace that it never made"))
        }
        guard let (known, source) = evidence.first else {
            return .unchecked("\(path): no longer held here (pruned or deleted, no old copy); accepted as history")
        }
        if hub == known || (appendOnly && hub.count < known.count && known.prefix(hub.count) == hub) {
            return .matches(source)
        }
        let what = appendOnly ? "is not a prefix of the records" : "differs from what"
        return .refused(
            FleetRefusal(
                path: path, rule: .ownNamespace,
                reason: "this host's own file on the hub \(what) this host wrote (its \(source.rawValue))"))
    }
}
