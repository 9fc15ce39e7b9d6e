import Foundation
import LastsetFormats

/// One page's part of a whole-machine apply.
public struct PageApplyResult: Sendable, Hashable {
    public var pageId: String
    public var status: PageApplyStatus
    /// The template version applied (its id).
    public var versionId: String?
    /// The page's replay report (absent when no replay ran).
    public var report: ReplayReport?
    /// Why no replay ran.
    public var error: String?
    /// A restore's choice of version, and why (`versions: "lastVerified"`; absent for the latest).
    public var restore: RestoreVersion?

    /// Sets every field.
    public init(
        pageId: String, status: PageApplyStatus, versionId: String? = nil, report: ReplayReport? = nil, error: String? = nil,
        restore: RestoreVersion? = nil
    ) {
        self.restore = restore
        self.pageId = pageId
        self.status = status
        self.versionId = versionId
        self.report = report
        self.error = error
    }
}

extension PageApplyResult: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = PageApplyResult(pageId: "", status: .notAttempted)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("error", &r.error)
        try f.field("pageId", &r.pageId)
        try f.field("report", &r.report)
        try f.field("restore", &r.restore)
        try f.field("status", &r.status)
        try f.field("versionId", &r.versionId)
    }
}
