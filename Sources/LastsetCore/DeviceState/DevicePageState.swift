import Foundation
import LastsetFormats

/// What the daemon knows a device page holds: the template last applied to it successfully, and whether
/// a replay to it was interrupted since, or failed after changing registers (a partial write). One record per
/// device and page, kept in `<data>/device-state/` (a file per device page) and rebuilt from the audit log
/// when it is lost. What each replay does to it is `ReplayPageEffect`'s decision.
public struct DevicePageState: Sendable, Hashable {
    /// The device label (configured id, or endpoint and unit for an ad-hoc target).
    public var device: String
    public var pageId: String
    /// The template version last applied and verified (nil: never, as far as the daemon knows).
    public var applied: AppliedTemplate?
    /// Set while an interrupted replay may have left the page partially written, or a failed one did.
    public var unverified: UnverifiedMark?

    /// Sets every field.
    public init(device: String, pageId: String, applied: AppliedTemplate? = nil, unverified: UnverifiedMark? = nil) {
        self.device = device
        self.pageId = pageId
        self.applied = applied
        self.unverified = unverified
    }

    /// Sets the mark `m`. An interrupted replay leaves the version recorded before beside the mark; a failed
    /// one that changed registers leaves none: the page holds parts of two versions, so neither.
    public mutating func setMark(_ m: UnverifiedMark) {
        unverified = m
        if m.reason == .failed { applied = nil }
    }
}

extension DevicePageState: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = DevicePageState(device: "", pageId: "")

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("applied", &r.applied)
        try f.field("device", &r.device)
        try f.field("pageId", &r.pageId)
        try f.field("unverified", &r.unverified)
    }
}
