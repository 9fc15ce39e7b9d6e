import Foundation
import LastsetFormats

/// One page of a device as it was found by a scheduled backup (or `lastset as-found DEVICE --now`): every
/// register's raw value — set, still at its "not set" value, or outside its rules alike: what the machine held —
/// and what changed since the record before it. Kept per device and page (`device_backup`), numbered 1, 2, … in
/// order; never a template version, so never what a replay writes by default (docs/AS-FOUND.md).
public struct AsFoundRecord: Sendable, Hashable {
    public var device: String
    public var pageId: String
    /// 1, 2, … per device and page.
    public var number: Int
    /// When the page was read.
    public var takenAt: Date
    /// Who took it: `policy:backup` for the schedule, else the caller.
    public var who: String
    /// The audit job of its record.
    public var job: String
    /// The page definition's hash it was read against.
    public var pageHash: String
    /// The page's identity registers as read (the machine it was).
    public var identity: [RecordedValue]
    /// Every register of the page, in page order.
    public var values: [RecordedValue]
    /// What differs from the previous record (empty for the first).
    public var changes: [AsFoundChange]
    /// The identity differs from the previous record's: another machine answered (its changes are listed, none is
    /// credited to Lastset).
    public var machineChanged: Bool
    /// The page definition changed since the previous record.
    public var pageChanged: Bool

    /// Sets every field.
    public init(
        device: String, pageId: String, number: Int, takenAt: Date, who: String, job: String, pageHash: String,
        identity: [RecordedValue], values: [RecordedValue], changes: [AsFoundChange] = [], machineChanged: Bool = false,
        pageChanged: Bool = false
    ) {
        self.device = device
        self.pageId = pageId
        self.number = number
        self.takenAt = takenAt
        self.who = who
        self.job = job
        self.pageHash = pageHash
        self.identity = identity
        self.values = values
        self.changes = changes
        self.machineChanged = machineChanged
        self.pageChanged = pageChanged
    }

    /// The record without its values (a listing's line).
    public var summary: AsFoundRecord {
        var s = self
        s.values = []
        return s
    }
}

extension AsFoundRecord: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = AsFoundRecord(
        device: "", pageId: "", number: 0, takenAt: .distantPast, who: "", job: "", pageHash: "", identity: [], values: [])

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.lines("changes", &r.changes)
        try f.field("device", &r.device)
        try f.field("identity", &r.identity)
        try f.field("job", &r.job)
        try f.flag("machineChanged", &r.machineChanged)
        try f.field("number", &r.number)
        try f.flag("pageChanged", &r.pageChanged)
        try f.field("pageHash", &r.pageHash)
        try f.field("pageId", &r.pageId)
        try f.field("takenAt", &r.takenAt)
        try f.lines("values", &r.values)
        try f.field("who", &r.who)
    }
}
