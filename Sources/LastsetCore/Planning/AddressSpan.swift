/// A run of consecutive registers: one register definition's words, or what one read request covers
/// (`RequestPlanner.reads`: `length` registers from `address`).
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
