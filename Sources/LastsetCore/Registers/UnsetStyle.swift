/// Which values of a register mean "never configured" when it declares no `unset` of its own.
public enum UnsetStyle: String, Codable, Sendable, Hashable, CaseIterable {
    /// The type's maximum (0xFFFF, 0x7FFF, …; for floats the largest finite value and all-0xFF, for
    /// strings and raw all-0xFF): a blank EEPROM.
    case maximum
    /// SunSpec's "not implemented" values: the minimum for signed types (0x8000, 0x80000000, …),
    /// the maximum for unsigned types, NaN for floats, all-0xFF for strings and raw.
    case sunspec
}
