import LastsetFormats
/// The optional `audit` section: how much of the audit log `lastset.db` keeps. Records past the bound are exported
/// to a JSONL file in `<data>/audit-archive/` first, then removed from the database (docs/RELIABILITY.md, "Audit
/// retention"); without the section every record is kept.
public struct AuditConfig: Codable, Sendable, Hashable {
    /// Keep at least the newest this many records (as `lastset audit` counts them: completed intents are not
    /// records of their own).
    public var keepRecords: Int?
    /// Keep at least the records of the last this many days.
    public var keepDays: Int?
    /// How often retention runs (besides at start); default "1h".
    public var interval: String?

    /// An audit section.
    public init(keepRecords: Int? = nil, keepDays: Int? = nil, interval: String? = nil) {
        self.keepRecords = keepRecords
        self.keepDays = keepDays
        self.interval = interval
    }

    /// Every key the section accepts.
    public static let keys = ["keepRecords", "keepDays", "interval"]
    /// The accepted `keepRecords`.
    public static let keepRecordsRange = 1...100_000_000
    /// The accepted `keepDays`.
    public static let keepDaysRange = 1...36_500
    /// The accepted `interval`s.
    public static let intervalRange: ClosedRange<Duration> = .seconds(60)...(.seconds(7 * 86_400))
    /// `interval` when the config does not set it.
    public static let defaultInterval: Duration = .seconds(3_600)

    /// `interval`, parsed (the checker has refused anything else), or the default.
    public var intervalDuration: Duration { interval.flatMap(DurationText.parse) ?? Self.defaultInterval }

    /// Whether any bound is set (an empty section keeps everything, as no section does).
    public var prunes: Bool { keepRecords != nil || keepDays != nil }
}
