import Foundation
import LastsetFormats

/// What one page of an as-found backup came to.
public enum AsFoundOutcome: String, JSONFieldValue, Sendable, Hashable, CaseIterable {
    /// The device page's first record: archived.
    case first
    /// Something changed since the last record: archived (`changes`).
    case changed
    /// Nothing changed: nothing archived (`number` is the last record's).
    case unchanged
    /// The page could not be read, or its record not stored (`error`): nothing archived.
    case failed
}

/// One page of an as-found backup.
public struct AsFoundPageResult: Sendable, Hashable {
    public var pageId: String
    public var outcome: AsFoundOutcome
    /// The record archived, or the last one when unchanged.
    public var number: Int?
    /// What changed (outcome `changed`).
    public var changes: [AsFoundChange]
    /// The audit message (what changed and by whom).
    public var summary: String?
    /// Why it failed.
    public var error: String?

    /// Sets every field.
    public init(
        pageId: String, outcome: AsFoundOutcome, number: Int? = nil, changes: [AsFoundChange] = [], summary: String? = nil,
        error: String? = nil
    ) {
        self.pageId = pageId
        self.outcome = outcome
        self.number = number
        self.changes = changes
        self.summary = summary
        self.error = error
    }
}

extension AsFoundPageResult: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = AsFoundPageResult(pageId: "", outcome: .failed)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("changes", &r.changes)
        try f.field("error", &r.error)
        try f.field("number", &r.number)
        try f.field("outcome", &r.outcome)
        try f.field("pageId", &r.pageId)
        try f.field("summary", &r.summary)
    }
}

/// An as-found backup of a device (a job of kind `backup`): each page's outcome, in config order.
public struct AsFoundReport: Sendable, Hashable {
    public var device: String
    public var pages: [AsFoundPageResult]
    /// Requests sent.
    public var requests: Int

    /// Sets every field.
    public init(device: String, pages: [AsFoundPageResult], requests: Int) {
        self.device = device
        self.pages = pages
        self.requests = requests
    }

    /// Whether every page was read and its outcome recorded.
    public var succeeded: Bool { !pages.isEmpty && pages.allSatisfy { $0.outcome != .failed } }

    /// The first failure, as "page: why" (nil: none).
    public var failure: String? {
        pages.first { $0.outcome == .failed }.map { "\($0.pageId): \($0.error ?? "failed")" }
    }
}

extension AsFoundReport: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = AsFoundReport(device: "", pages: [], requests: 0)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("device", &r.device)
        try f.field("pages", &r.pages)
        try f.field("requests", &r.requests)
    }
}
