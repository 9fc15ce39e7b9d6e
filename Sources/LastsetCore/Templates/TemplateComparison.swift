import Foundation

/// One register whose value differs between two template versions.
public struct ChangedEntry: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    /// In the baseline version (`against`).
    public var from: TemplateEntry
    /// In the compared version.
    public var to: TemplateEntry

    /// Sets every field.
    public init(registerId: String, address: Int, from: TemplateEntry, to: TemplateEntry) {
        self.registerId = registerId
        self.address = address
        self.from = from
        self.to = to
    }
}

/// `GET /v1/pages/{page}/templates/{version}/diff?against=B`: what changes going from version B to `version`.
public struct TemplateDiff: Codable, Sendable, Hashable {
    public var pageId: String
    /// The compared version's id.
    public var version: String
    /// The baseline version's id.
    public var against: String
    /// In `version`, not in `against`.
    public var added: [TemplateEntry]
    /// In `against`, not in `version`.
    public var removed: [TemplateEntry]
    /// In both, with other bytes (or another address, length or recorded layout).
    public var changed: [ChangedEntry]
    /// In both, the same.
    public var unchanged: Int
    /// Whether the two were captured against the same page definition.
    public var samePageHash: Bool
    /// Whether their source identity values are the same.
    public var sameIdentity: Bool

    /// Sets every field.
    public init(
        pageId: String, version: String, against: String, added: [TemplateEntry], removed: [TemplateEntry],
        changed: [ChangedEntry], unchanged: Int, samePageHash: Bool, sameIdentity: Bool
    ) {
        self.pageId = pageId
        self.version = version
        self.against = against
        self.added = added
        self.removed = removed
        self.changed = changed
        self.unchanged = unchanged
        self.samePageHash = samePageHash
        self.sameIdentity = sameIdentity
    }

    /// Whether nothing differs.
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty && samePageHash && sameIdentity }
}

/// Pure comparisons of templates: history operations and "is this capture new?".
public enum TemplateComparison {
    /// What changes going from `base` to `template`, register by register (by id, in `template`'s page order;
    /// removed ones in `base`'s order).
    public static func diff(_ template: Template, against base: Template) -> TemplateDiff {
        let old = Dictionary(base.entries.map { ($0.registerId, $0) }, uniquingKeysWith: { a, _ in a })
        let new = Set(template.entries.map(\.registerId))
        var added: [TemplateEntry] = []
        var changed: [ChangedEntry] = []
        var unchanged = 0
        for e in template.entries {
            guard let o = old[e.registerId] else {
                added.append(e)
                continue
            }
            if same(o, e) {
                unchanged += 1
            } else {
                changed.append(ChangedEntry(registerId: e.registerId, address: e.address, from: o, to: e))
            }
        }
        return TemplateDiff(
            pageId: template.pageId, version: template.versionId.id, against: base.versionId.id, added: added,
            removed: base.entries.filter { !new.contains($0.registerId) }, changed: changed, unchanged: unchanged,
            samePageHash: template.pageHash == base.pageHash,
            sameIdentity: identityBytes(template) == identityBytes(base))
    }

    /// Whether a fresh capture holds what `latest` holds: same page definition, same source identity values,
    /// the same entries (ids, addresses, lengths, bytes, in order) and the same skipped registers. Times,
    /// who and the source's id or endpoint do not count.
    public static func sameContent(_ capture: Template, as latest: Template) -> Bool {
        capture.pageHash == latest.pageHash && identityBytes(capture) == identityBytes(latest)
            && capture.entries.count == latest.entries.count && zip(capture.entries, latest.entries).allSatisfy(same)
            && capture.skipped == latest.skipped
    }

    /// Same register, address, length and bytes, and the same layout where both record one (an entry from
    /// before layouts were kept has the layout of its page hash, which is compared on its own).
    private static func same(_ a: TemplateEntry, _ b: TemplateEntry) -> Bool {
        a.registerId == b.registerId && a.address == b.address && a.length == b.length
            && a.valueData.lowercased() == b.valueData.lowercased()
            && (a.layout == nil || b.layout == nil || a.layout == b.layout)
    }

    private static func identityBytes(_ t: Template) -> [String] {
        t.source.identity.map { $0.registerId + "=" + $0.valueData.lowercased() }
    }
}
