import Foundation
import LastsetFormats

/// Who Lastset knows changed a register between two as-found records: the job whose audit record left the device
/// holding the value found (a replay, a restore, a change request's apply). No author: "by nobody Lastset knows".
public struct AsFoundAuthor: Sendable, Hashable {
    /// The audit job id (`lastset audit --job`).
    public var job: String
    /// Who ran it (`token:ops`, `policy:replacement`, …).
    public var who: String
    /// When its record was written.
    public var time: Date

    /// Sets every field.
    public init(job: String, who: String, time: Date) {
        self.job = job
        self.who = who
        self.time = time
    }
}

extension AsFoundAuthor: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = AsFoundAuthor(job: "", who: "", time: .distantPast)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("job", &r.job)
        try f.field("time", &r.time)
        try f.field("who", &r.who)
    }
}

/// How one register differs from the previous as-found record of its device and page.
public enum AsFoundChangeKind: String, JSONFieldValue, Sendable, Hashable, CaseIterable {
    /// It holds another value.
    case changed
    /// The page's definition gained it since the previous record (no value before).
    case added
    /// The page's definition lost it since the previous record (no value now).
    case removed
}

/// One register found different from the previous as-found record, and who Lastset knows did it.
public struct AsFoundChange: Sendable, Hashable {
    public var registerId: String
    public var kind: AsFoundChangeKind
    /// The value in the previous record (nil: `added`).
    public var before: RecordedValue?
    /// The value found now (nil: `removed`).
    public var after: RecordedValue?
    /// The Lastset job that left the device holding `after`; nil: by nobody Lastset knows.
    public var by: AsFoundAuthor?

    /// Sets every field.
    public init(
        registerId: String, kind: AsFoundChangeKind, before: RecordedValue?, after: RecordedValue?, by: AsFoundAuthor? = nil
    ) {
        self.registerId = registerId
        self.kind = kind
        self.before = before
        self.after = after
        self.by = by
    }
}

extension AsFoundChange: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = AsFoundChange(registerId: "", kind: .changed, before: nil, after: nil)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("after", &r.after)
        try f.field("before", &r.before)
        try f.field("by", &r.by)
        try f.field("kind", &r.kind)
        try f.field("registerId", &r.registerId)
    }
}
