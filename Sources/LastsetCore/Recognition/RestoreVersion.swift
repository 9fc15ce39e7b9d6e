import Foundation
import LastsetFormats

/// Which version of a page a restore writes to a device, and why: the version last applied **and verified** on that
/// device (`DevicePageState.applied`), never simply the latest. The one decision for the replacement policy's
/// automatic restore and an operator's restore (`POST /v1/devices/{id}/apply` with `versions: "lastVerified"`, the
/// console's banner). Pure (`RestoreVersionTests`).
public struct RestoreVersion: Sendable, Hashable {
    /// Why this version (or none).
    public enum Reason: String, JSONFieldValue, Sendable, Hashable, CaseIterable {
        /// The version last applied and verified on the device (its replay verified every register).
        case lastVerified
        /// No version was ever applied and verified on the device (as far as the daemon knows): nothing to restore.
        case neverVerified
        /// A failed replay changed registers since: the page holds parts of two versions, and no verified one is
        /// known — nothing to restore automatically.
        case partiallyWritten
    }

    /// The page.
    public var pageId: String
    /// The version to write (nil: none; the page is not restored).
    public var versionId: String?
    /// Why.
    public var reason: Reason
    /// When the chosen version was applied and verified, and by whom.
    public var verifiedAt: Date?
    public var verifiedBy: String?
    /// The page's latest version when the choice was made (nil: none archived), for the operator to compare.
    public var latestVersionId: String?
    /// What a person reads: `v1: last verified on press at … by …; the latest, v2, is not what press was last verified with`.
    public var explanation: String

    /// Sets every field.
    public init(
        pageId: String, versionId: String?, reason: Reason, verifiedAt: Date? = nil, verifiedBy: String? = nil,
        latestVersionId: String? = nil, explanation: String
    ) {
        self.pageId = pageId
        self.versionId = versionId
        self.reason = reason
        self.verifiedAt = verifiedAt
        self.verifiedBy = verifiedBy
        self.latestVersionId = latestVersionId
        self.explanation = explanation
    }

    /// The version of `pageId` a restore writes to `device`, from what the daemon knows the page holds (`state`)
    /// and the page's latest version (`latest`, for the explanation only: it never decides).
    public static func choose(pageId: String, device: String, state: DevicePageState?, latest: String?) -> RestoreVersion {
        guard let applied = state?.applied else {
            if let mark = state?.unverified, mark.reason == .failed {
                return RestoreVersion(
                    pageId: pageId, versionId: nil, reason: .partiallyWritten, latestVersionId: latest,
                    explanation: "nothing to restore: a failed replay (job \(mark.job)) left \(pageId) partially written"
                        + " on \(device), and no verified version is known")
            }
            return RestoreVersion(
                pageId: pageId, versionId: nil, reason: .neverVerified, latestVersionId: latest,
                explanation: "nothing to restore: no version of \(pageId) was ever verified on \(device)")
        }
        var text = "v\(applied.versionId): last verified on \(device) at \(TimeText.iso8601(applied.appliedAt))"
            + " by \(applied.appliedBy)"
        if let latest, latest != applied.versionId {
            text += "; the latest, v\(latest), is not what \(device) was last verified with"
        } else if latest != nil {
            text += "; it is the latest"
        }
        if let mark = state?.unverified { text += "; an interrupted replay (job \(mark.job)) marked the page since" }
        return RestoreVersion(
            pageId: pageId, versionId: applied.versionId, reason: .lastVerified, verifiedAt: applied.appliedAt,
            verifiedBy: applied.appliedBy, latestVersionId: latest, explanation: text)
    }
}

extension RestoreVersion: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = RestoreVersion(pageId: "", versionId: nil, reason: .neverVerified, explanation: "")

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("explanation", &r.explanation)
        try f.field("latestVersionId", &r.latestVersionId)
        try f.field("pageId", &r.pageId)
        try f.field("reason", &r.reason)
        try f.field("verifiedAt", &r.verifiedAt)
        try f.field("verifiedBy", &r.verifiedBy)
        try f.field("versionId", &r.versionId)
    }
}
