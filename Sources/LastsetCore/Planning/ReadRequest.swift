/// One read request: `count` registers starting at `address`.
public struct ReadRequest: Hashable, Sendable {
    /// First register read.
    public var address: Int
    /// Number of registers read.
    public var count: Int
    /// A request from its first register and count.
    public init(address: Int, count: Int) {
        self.address = address
        self.count = count
    }
    /// One past the last register read.
    public var end: Int { address + count }
}
