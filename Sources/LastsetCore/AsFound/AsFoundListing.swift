import Foundation
import LastsetFormats

/// `GET /v1/devices/{id}/as-found`: a device's schedule, its last backup attempt, and its as-found records, newest
/// first, without their values.
public struct AsFoundListing: Sendable, Hashable {
    public var device: String
    /// The `backup` interval as configured (nil: no scheduled backup).
    public var backup: String?
    /// When the last backup was attempted (nil: never).
    public var lastAttempt: Date?
    /// Why the last attempt failed (nil: it succeeded, or none).
    public var failure: String?
    public var records: [AsFoundRecord]

    /// Sets every field.
    public init(device: String, backup: String?, lastAttempt: Date?, failure: String?, records: [AsFoundRecord]) {
        self.device = device
        self.backup = backup
        self.lastAttempt = lastAttempt
        self.failure = failure
        self.records = records
    }
}

extension AsFoundListing: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = AsFoundListing(device: "", backup: nil, lastAttempt: nil, failure: nil, records: [])

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("backup", &r.backup)
        try f.field("device", &r.device)
        try f.field("failure", &r.failure)
        try f.field("lastAttempt", &r.lastAttempt)
        try f.lines("records", &r.records)
    }
}
