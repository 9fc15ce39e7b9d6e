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

    /// Sets every field.
    public init(
        pageId: String, status: PageApplyStatus, versionId: String? = nil, report: ReplayReport? = nil, error: String? = nil
    ) {
        self.pageId = pageId
        self.status = status
        self.versionId = versionId
        self.report = report
        self.error = error
    }
}

extension PageApplyResult: Codable {
    private enum CodingKeys: String, CodingKey { case pageId, status, versionId, report, error }
}
