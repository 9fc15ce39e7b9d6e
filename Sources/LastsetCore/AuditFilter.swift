import Foundation

/// The audit route's filters (`GET /v1/audit?page=&device=&who=&since=&until=`): every given one must match.
public struct AuditFilter: Sendable, Hashable {
    /// Exact page id.
    public var page: String?
    /// Exact device id or label (an ad-hoc target's endpoint label).
    public var device: String?
    /// Exact principal (`token:NAME`, `uid:N(user)`), or a prefix ending in ":" (`token:`).
    public var who: String?
    /// Records at or after this time.
    public var since: Date?
    /// Records before this time.
    public var until: Date?

    /// Creates a filter; nil fields match everything.
    public init(page: String? = nil, device: String? = nil, who: String? = nil, since: Date? = nil, until: Date? = nil) {
        self.page = page
        self.device = device
        self.who = who
        self.since = since
        self.until = until
    }

    /// Whether no field is set.
    public var isEmpty: Bool { page == nil && device == nil && who == nil && since == nil && until == nil }

    /// Whether `record` passes every given filter.
    public func matches(_ record: AuditRecord) -> Bool {
        if let page, record.pageId != page { return false }
        if let device, record.device != device { return false }
        if let who {
            if who.hasSuffix(":") ? !record.who.hasPrefix(who) : record.who != who { return false }
        }
        if let since, record.time < since { return false }
        if let until, record.time >= until { return false }
        return true
    }
}
