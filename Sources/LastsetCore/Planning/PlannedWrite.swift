/// One register value to write, already encoded.
public struct PlannedWrite: Hashable, Sendable {
    /// The register written.
    public var registerId: String
    /// Its first register.
    public var address: Int
    /// The encoded words, in wire order.
    public var words: [UInt16]
    /// A write from its parts.
    public init(registerId: String, address: Int, words: [UInt16]) {
        self.registerId = registerId
        self.address = address
        self.words = words
    }
}
