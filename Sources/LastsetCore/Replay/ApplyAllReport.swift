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

    /// Whether every page succeeded (or was planned, for a dry run); a restore's page with nothing to restore is
    /// not a failure.
    public var succeeded: Bool {
        pages.allSatisfy { $0.status == (dryRun ? .planned : .succeeded) || $0.status == .nothingToRestore }
    }

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

extension ApplyAllReport: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = ApplyAllReport(device: "", dryRun: false, pages: [], stoppedAt: nil)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("device", &r.device)
        try f.field("dryRun", &r.dryRun)
        try f.field("pages", &r.pages)
        try f.field("stoppedAt", &r.stoppedAt)
    }
}
