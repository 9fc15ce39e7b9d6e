/// One override as the config compiles it: the words to write (wire order, checked against the register's
/// type, range, enum and "not set" rules when the config loaded), their readable value and the layer it comes from.
public struct OverrideValue: Sendable, Hashable {
    /// The words to write.
    public var words: [UInt16]
    /// Their decoding with the register's layout.
    public var value: RegisterValue
    /// The device or group that declared it.
    public var origin: OverrideOrigin

    /// Sets every field.
    public init(words: [UInt16], value: RegisterValue, origin: OverrideOrigin) {
        self.words = words
        self.value = value
        self.origin = origin
    }
}
