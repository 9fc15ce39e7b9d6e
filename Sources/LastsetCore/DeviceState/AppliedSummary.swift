import Foundation

/// Which version a device page holds, without the values (`GET /v1/devices`).
public struct AppliedSummary: Codable, Sendable, Hashable {
    public var version: Int
    /// `3`, or `line-7-3` in a fleet.
    public var versionId: String
    public var appliedAt: Date
    public var appliedBy: String
    public var job: String?

    /// Sets every field.
    public init(version: Int, versionId: String? = nil, appliedAt: Date, appliedBy: String, job: String?) {
        self.version = version
        self.versionId = versionId ?? String(version)
        self.appliedAt = appliedAt
        self.appliedBy = appliedBy
        self.job = job
    }
}
