import Foundation
import LastsetFormats

/// What a rollback did to one register: the snapshot value it wrote back and what was then read.
public struct AuditRollback: Sendable, Hashable {
    /// The value restored (the register's value before the replay).
    public var restored: RegisterValue
    /// Read back after the restore (nil when the read failed).
    public var readBack: RegisterValue?
    /// verified when the read-back equals the restored value.
    public var status: RegisterStatus

    /// Sets every field.
    public init(restored: RegisterValue, readBack: RegisterValue?, status: RegisterStatus) {
        self.restored = restored
        self.readBack = readBack
        self.status = status
    }
}

extension AuditRollback: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = AuditRollback(restored: .unsigned(0), readBack: nil, status: .verified)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("readBack", &r.readBack)
        try f.field("restored", &r.restored)
        try f.field("status", &r.status)
    }
}
