/// A register whose value must match between template and target before a replay (e.g. the model).
public struct IdentityRegister: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    public var type: RegisterType
    public var wordOrder: WordOrder?
    public var byteOrder: ByteOrder?

    public init(registerId: String, address: Int, type: RegisterType, wordOrder: WordOrder? = nil, byteOrder: ByteOrder? = nil) {
        self.registerId = registerId
        self.address = address
        self.type = type
        self.wordOrder = wordOrder
        self.byteOrder = byteOrder
    }

    /// The identity register viewed as a read-only register definition, for decoding.
    public var definition: RegisterDefinition {
        RegisterDefinition(
            registerId: registerId, address: address, type: type, wordOrder: wordOrder,
            byteOrder: byteOrder, access: .ro, clone: false)
    }
}
