import Foundation
import LastsetFormats

/// One register's fate in an audit record.
public struct AuditRegister: Sendable, Hashable {
    public var registerId: String
    /// The target's value before the replay.
    public var before: RegisterValue?
    /// What the device is known to hold at the end: read back after the rollback when one ran, else the
    /// final pass or the verification read, else the captured / imported value.
    public var after: RegisterValue?
    public var status: AuditRegisterStatus
    /// Replay: the value written (sent; nil when never sent).
    public var written: RegisterValue?
    /// Replay: the value read back when the write was verified.
    public var readBack: RegisterValue?
    /// Replay with rollback: what the rollback restored and read back.
    public var rollback: AuditRollback?
    /// Why (rule broken, error).
    public var message: String?
    /// Replay: where the written value comes from (template or override) and its band; nil: the template's, exact.
    public var origin: EntryOrigin?

    /// Sets every field.
    public init(
        registerId: String, before: RegisterValue?, after: RegisterValue?, status: AuditRegisterStatus,
        written: RegisterValue? = nil, readBack: RegisterValue? = nil, rollback: AuditRollback? = nil, message: String? = nil, origin: EntryOrigin? = nil
    ) {
        self.origin = origin
        self.registerId = registerId
        self.before = before
        self.after = after
        self.status = status
        self.written = written
        self.readBack = readBack
        self.rollback = rollback
        self.message = message
    }
}

extension AuditRegister: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = AuditRegister(registerId: "", before: nil, after: nil, status: .captured)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("after", &r.after)
        try f.field("before", &r.before)
        try f.field("message", &r.message)
        try f.field("origin", &r.origin)
        try f.field("readBack", &r.readBack)
        try f.field("registerId", &r.registerId)
        try f.field("rollback", &r.rollback)
        try f.field("status", &r.status)
        try f.field("written", &r.written)
    }
}
