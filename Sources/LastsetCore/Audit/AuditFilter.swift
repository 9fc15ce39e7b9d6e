import Foundation

/// The audit route's filters (`GET /v1/audit?page=&device=&who=&result=&kind=&job=&since=&until=`): every given one
/// must match.
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
    /// Any of these results.
    public var results: Set<AuditResult>?
    /// Any of these kinds.
    public var kinds: Set<AuditKind>?
    /// The job id, or a prefix of it (as the CLI's audit table shows it).
    public var job: String?

    /// Creates a filter; nil fields match everything.
    public init(
        page: String? = nil, device: String? = nil, who: String? = nil, since: Date? = nil, until: Date? = nil,
        results: Set<AuditResult>? = nil, kinds: Set<AuditKind>? = nil, job: String? = nil
    ) {
        self.page = page
        self.device = device
        self.who = who
        self.since = since
        self.until = until
        self.results = results
        self.kinds = kinds
        self.job = job
    }

    /// Whether no field is set.
    public var isEmpty: Bool {
        page == nil && device == nil && who == nil && since == nil && until == nil && results == nil && kinds == nil
            && job == nil
    }

    /// Parses a comma-separated list of enum raw values (`failed,refused`); nil and the reason, quoting the
    /// first bad one, otherwise.
    public static func parseList<T: RawRepresentable & CaseIterable>(_ text: String, as: T.Type) -> (Set<T>?, String?)
    where T.RawValue == String {
        var out = Set<T>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let v = T(rawValue: String(part)) else {
                return (nil, "\"\(part)\" is not one of " + T.allCases.map(\.rawValue).joined(separator: ", "))
            }
            out.insert(v)
        }
        return (out, nil)
    }

    /// Whether `record` passes every given filter.
    public func matches(_ record: AuditRecord) -> Bool {
        if let page, record.pageId != page { return false }
        if let device, record.device != device { return false }
        if let who {
            if who.hasSuffix(":") ? !record.who.hasPrefix(who) : record.who != who { return false }
        }
        if let since, record.time < since { return false }
        if let until, record.time >= until { return false }
        if let results, !results.contains(record.result) { return false }
        if let kinds, !kinds.contains(record.kind) { return false }
        if let job, !(record.job ?? "").hasPrefix(job) { return false }
        return true
    }
}
