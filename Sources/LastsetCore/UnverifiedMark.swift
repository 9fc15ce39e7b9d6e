import Foundation

/// A device page that may hold a partial template: a replay to it was interrupted (the daemon was
/// killed or crashed while writing). It stays until a replay that succeeds or a diff clears it; the
/// daemon never resumes the replay by itself.
public struct UnverifiedMark: Codable, Sendable, Hashable {
    /// The device label (configured id, or endpoint and unit).
    public var device: String
    public var pageId: String
    /// When the interrupted replay started.
    public var since: Date
    /// The interrupted job.
    public var job: String
    /// "interrupted: may be partially written …".
    public var message: String

    /// Sets every field.
    public init(device: String, pageId: String, since: Date, job: String, message: String) {
        self.device = device
        self.pageId = pageId
        self.since = since
        self.job = job
        self.message = message
    }

    /// Whether a dry run shows what the machine holds, so it may clear the mark: it was planned and read the
    /// current value of every entry. A dry run refused before reading (an unreachable machine: 0 requests) or
    /// one that could not read some registers says nothing about them (issue 19, defect 8).
    public static func isClearedBy(dryRun report: ReplayReport) -> Bool {
        report.status == .planned && report.registers.allSatisfy { $0.actualData != nil }
    }
}
