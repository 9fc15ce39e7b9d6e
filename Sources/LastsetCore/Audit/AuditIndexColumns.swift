import Foundation

/// The columns an audit record's row carries beside its JSON, for the filters' indexes: taken from the record, so
/// the chain's check can tell when one was changed on its own.
public struct AuditIndexColumns: Sendable, Hashable {
    /// The record's time in milliseconds since 1970 (the database's precision).
    public var time: Int64
    public var kind: String
    public var result: String
    public var pageId: String
    public var device: String
    public var who: String
    public var job: String?

    public init(time: Int64, kind: String, result: String, pageId: String, device: String, who: String, job: String?) {
        self.time = time
        self.kind = kind
        self.result = result
        self.pageId = pageId
        self.device = device
        self.who = who
        self.job = job
    }

    /// The columns of `record`.
    public init(_ record: AuditRecord) {
        self.init(
            time: Self.milliseconds(record.time), kind: record.kind.rawValue, result: record.result.rawValue,
            pageId: record.pageId, device: record.device, who: record.who, job: record.job)
    }

    /// Milliseconds since 1970, as the database keeps times.
    public static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// The name of the first column of `stored` that differs from these (nil: none, or nothing stored to compare).
    public func firstDifference(from stored: AuditIndexColumns?) -> String? {
        guard let stored else { return nil }
        if stored.time != time { return "time" }
        if stored.kind != kind { return "kind" }
        if stored.result != result { return "result" }
        if stored.pageId != pageId { return "page_id" }
        if stored.device != device { return "device" }
        if stored.who != who { return "who" }
        if stored.job != job { return "job" }
        return nil
    }
}
