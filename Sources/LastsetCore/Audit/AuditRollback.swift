import Foundation

/// What a rollback did to one register: the snapshot value it wrote back and what was then read.
public struct AuditRollback: Codable, Sendable, Hashable {
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
