import Foundation
import LastsetFormats

/// The template a successful replay wrote to a device page: which version, when, by whom, and the values
/// it wrote (what polling compares the live values with, even after the version is deleted).
public struct AppliedTemplate: Sendable, Hashable {
    /// Archive version applied: its number (this host's, or `host`'s in a fleet).
    public var version: Int
    /// The version's id as users and the API name it: `3`, or `line-7-3` in a fleet.
    public var versionId: String
    /// The template's page hash.
    public var pageHash: String
    /// When the replay ended.
    public var appliedAt: Date
    /// Who asked for it (`uid:…`, `token:…`).
    public var appliedBy: String
    /// The replay job (matches its audit record).
    public var job: String?
    /// The values written, in page order.
    public var entries: [RecordedValue]

    /// Sets every field.
    public init(
        version: Int, versionId: String? = nil, pageHash: String, appliedAt: Date, appliedBy: String, job: String?,
        entries: [RecordedValue]
    ) {
        self.version = version
        self.versionId = versionId ?? String(version)
        self.pageHash = pageHash
        self.appliedAt = appliedAt
        self.appliedBy = appliedBy
        self.job = job
        self.entries = entries
    }

    /// The record of a successful replay of `template`; `entries`: what it wrote (default: every entry).
    public init(template: Template, entries: [RecordedValue]? = nil, appliedAt: Date, appliedBy: String, job: String?) {
        self.init(
            version: template.version, versionId: template.versionId.id, pageHash: template.pageHash, appliedAt: appliedAt,
            appliedBy: appliedBy, job: job,
            entries: entries ?? template.entries.map(RecordedValue.init))
    }

    /// The same without its entries (device lists).
    public var summary: AppliedSummary {
        AppliedSummary(version: version, versionId: versionId, appliedAt: appliedAt, appliedBy: appliedBy, job: job)
    }
}

extension AppliedTemplate: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = AppliedTemplate(
        version: 0, pageHash: "", appliedAt: .distantPast, appliedBy: "", job: nil, entries: [])

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("appliedAt", &r.appliedAt)
        try f.field("appliedBy", &r.appliedBy)
        try f.lines("entries", &r.entries)
        try f.field("job", &r.job)
        try f.field("pageHash", &r.pageHash)
        try f.field("version", &r.version)
        try f.field("versionId", &r.versionId)
    }
}
