import LastsetFormats

/// A single-register write run before or after a replay's writes (unlock, commit to EEPROM, …).
public struct WriteStep: Sendable, Hashable {
    public var address: Int
    public var value: Int

    public init(address: Int, value: Int) {
        self.address = address
        self.value = value
    }
}

extension WriteStep: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = WriteStep(address: 0, value: 0)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("address", &r.address)
        try f.field("value", &r.value)
    }
}
