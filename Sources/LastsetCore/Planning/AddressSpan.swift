/// A span of registers to read (one register definition's address and length).
public struct AddressSpan: Hashable, Sendable {
    /// First register.
    public var address: Int
    /// Number of registers.
    public var length: Int
    /// A span from its first register and length.
    public init(address: Int, length: Int) {
        self.address = address
        self.length = length
    }
    /// One past the last register.
    public var end: Int { address + length }
}
