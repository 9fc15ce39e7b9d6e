import LastsetFormats

/// The restore step of `onError: rollback` (also run after a shutdown stopped a rollback replay).
public struct RollbackResult: Sendable, Hashable {
    /// True when every touched register was restored and verified.
    public var restored: Bool
    /// Per register a frame may have changed (acknowledged or in doubt): expected = the snapshot value restored,
    /// actual = what was read back afterwards.
    public var registers: [RegisterResult]

    /// Sets every field.
    public init(restored: Bool, registers: [RegisterResult]) {
        self.restored = restored
        self.registers = registers
    }
}

extension RollbackResult: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = RollbackResult(restored: false, registers: [])

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("registers", &r.registers)
        try f.field("restored", &r.restored)
    }
}
