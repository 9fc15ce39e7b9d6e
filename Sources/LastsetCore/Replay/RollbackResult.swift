/// The restore step of `onError: rollback` (also run after a shutdown stopped a rollback replay).
public struct RollbackResult: Codable, Sendable, Hashable {
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
