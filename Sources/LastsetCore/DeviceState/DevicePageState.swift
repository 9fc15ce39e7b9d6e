import Foundation

/// What the daemon knows a device page holds: the template last applied to it successfully, and whether
/// a replay to it was interrupted since, or failed after changing registers (a partial write). One record per
/// device and page, kept in `<data>/device-state/` (a file per device page) and rebuilt from the audit log
/// when it is lost. What each replay does to it is `ReplayPageEffect`'s decision.
public struct DevicePageState: Codable, Sendable, Hashable {
    /// The device label (configured id, or endpoint and unit for an ad-hoc target).
    public var device: String
    public var pageId: String
    /// The template version last applied and verified (nil: never, as far as the daemon knows).
    public var applied: AppliedTemplate?
    /// Set while an interrupted replay may have left the page partially written, or a failed one did.
    public var unverified: UnverifiedMark?

    /// Sets every field.
    public init(device: String, pageId: String, applied: AppliedTemplate? = nil, unverified: UnverifiedMark? = nil) {
        self.device = device
        self.pageId = pageId
        self.applied = applied
        self.unverified = unverified
    }

    /// Sets the mark `m`. An interrupted replay leaves the version recorded before beside the mark; a failed
    /// one that changed registers leaves none: the page holds parts of two versions, so neither.
    public mutating func setMark(_ m: UnverifiedMark) {
        unverified = m
        if m.reason == .failed { applied = nil }
    }
}

/// The template a successful replay wrote to a device page: which version, when, by whom, and the values
/// it wrote (what polling compares the live values with, even after the version is deleted).
public struct AppliedTemplate: Codable, Sendable, Hashable {
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
    public var entries: [ExpectedValue]

    /// Sets every field.
    public init(
        version: Int, versionId: String? = nil, pageHash: String, appliedAt: Date, appliedBy: String, job: String?,
        entries: [ExpectedValue]
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
    public init(template: Template, entries: [ExpectedValue]? = nil, appliedAt: Date, appliedBy: String, job: String?) {
        self.init(
            version: template.version, versionId: template.versionId.id, pageHash: template.pageHash, appliedAt: appliedAt,
            appliedBy: appliedBy, job: job,
            entries: entries ?? template.entries.map(ExpectedValue.init))
    }

    /// The same without its entries (device lists).
    public var summary: AppliedSummary {
        AppliedSummary(version: version, versionId: versionId, appliedAt: appliedAt, appliedBy: appliedBy, job: job)
    }
}

/// Which version a device page holds, without the values (`GET /v1/devices`).
public struct AppliedSummary: Codable, Sendable, Hashable {
    public var version: Int
    /// `3`, or `line-7-3` in a fleet.
    public var versionId: String
    public var appliedAt: Date
    public var appliedBy: String
    public var job: String?

    /// Sets every field.
    public init(version: Int, versionId: String? = nil, appliedAt: Date, appliedBy: String, job: String?) {
        self.version = version
        self.versionId = versionId ?? String(version)
        self.appliedAt = appliedAt
        self.appliedBy = appliedBy
        self.job = job
    }
}

/// One register's value as a template wrote it.
public struct ExpectedValue: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    /// Raw bytes, hex (authoritative).
    public var valueData: String
    /// The readable view of valueData.
    public var value: RegisterValue

    /// Sets every field.
    public init(registerId: String, address: Int, valueData: String, value: RegisterValue) {
        self.registerId = registerId
        self.address = address
        self.valueData = valueData
        self.value = value
    }

    /// The value a template entry writes.
    public init(_ entry: TemplateEntry) {
        self.init(registerId: entry.registerId, address: entry.address, valueData: entry.valueData, value: entry.value)
    }
}
