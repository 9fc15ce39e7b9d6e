import Foundation
import LastsetFormats

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
