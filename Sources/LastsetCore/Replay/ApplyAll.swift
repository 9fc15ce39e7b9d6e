import Foundation
import LastsetFormats

/// What to do when one page of a whole-machine apply does not succeed.
public enum PageFailurePolicy: String, Codable, Sendable, Hashable {
    /// Stop: the pages after it are not attempted (default).
    case stop
    /// Go on with the next page.
    case `continue`
}

/// `POST /v1/devices/{id}/apply` body: every page of a configured device, in config order, in one job.
public struct ApplyAllRequest: Codable, Sendable, Hashable {
    /// Plan and diff every page; nothing is written.
    public var dryRun: Bool?
    /// Within each page (as for one page's apply).
    public var onError: OnError?
    /// After a page that does not succeed.
    public var onPageFailure: PageFailurePolicy?
    /// Page id → the version id the operator confirmed for it (the dry run's `versionId`): 409
    /// `version_changed`, nothing written, when any page's latest is another by the time of the write.
    public var expectVersions: [String: String]?

    /// Sets every field.
    public init(
        dryRun: Bool? = nil, onError: OnError? = nil, onPageFailure: PageFailurePolicy? = nil,
        expectVersions: [String: String]? = nil
    ) {
        self.expectVersions = expectVersions
        self.dryRun = dryRun
        self.onError = onError
        self.onPageFailure = onPageFailure
    }
}

/// How one page of a whole-machine apply ended.
public enum PageApplyStatus: String, Codable, Sendable, Hashable {
    /// Written and verified (afterWrite done).
    case succeeded
    /// Dry run: planned.
    case planned
    /// The replay failed (see its report).
    case failed
    /// Refused before its first write (identity differs, invalid template, …).
    case refused
    /// The page has no archived template (or it cannot be loaded): nothing written.
    case noTemplate
    /// Not attempted: an earlier page did not succeed (stop policy), or the job was cancelled.
    case notAttempted
}

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

/// The report of a whole-machine apply: every page of the device in config order.
public struct ApplyAllReport: Sendable, Hashable {
    public var device: String
    public var dryRun: Bool
    public var pages: [PageApplyResult]
    /// The page where the job stopped (the first that did not succeed, with the stop policy).
    public var stoppedAt: String?

    /// Sets every field.
    public init(device: String, dryRun: Bool, pages: [PageApplyResult], stoppedAt: String?) {
        self.device = device
        self.dryRun = dryRun
        self.pages = pages
        self.stoppedAt = stoppedAt
    }

    /// Whether every page succeeded (or was planned, for a dry run).
    public var succeeded: Bool { pages.allSatisfy { $0.status == (dryRun ? .planned : .succeeded) } }

    /// The status of a page whose replay ran.
    public static func status(of report: ReplayReport) -> PageApplyStatus {
        switch report.status {
        case .succeeded: return .succeeded
        case .planned: return .planned
        case .refused: return .refused
        case .failed: return .failed
        }
    }
}

extension PageApplyResult: Codable {
    private enum CodingKeys: String, CodingKey { case pageId, status, versionId, report, error }
}

extension ApplyAllReport: Codable {}

extension ApplyAllReport {
    /// Writes the report as `JSONEncoder` with sorted keys would (each page's replay with its fast writer).
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("device", device)
        w.field("dryRun", dryRun)
        w.key("pages")
        w.beginArray()
        for p in pages {
            w.beginObject()
            w.optional("error", p.error)
            w.field("pageId", p.pageId)
            if let report = p.report {
                w.key("report")
                report.write(to: &w)
            }
            w.field("status", p.status.rawValue)
            w.optional("versionId", p.versionId)
            w.endObject()
        }
        w.endArray()
        w.optional("stoppedAt", stoppedAt)
        w.endObject()
    }
}
