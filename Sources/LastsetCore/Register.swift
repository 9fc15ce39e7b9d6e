import Foundation

/// A register of the map together with its last read raw value (the seeds' `SARegister`).
///
/// `valueData` (the bytes as read, high byte of each word first) is authoritative; `value` and
/// `utf8Value` are views computed from it.
public struct Register: Sendable, Hashable {
    /// How the register is declared in the map.
    public var definition: RegisterDefinition
    /// The raw bytes as read off the wire: each word high byte first, words in address order.
    public var valueData: [UInt8]
    /// When `valueData` was last read.
    public var lastDate: Date

    /// A register from its definition and the raw bytes as read.
    public init(definition: RegisterDefinition, valueData: [UInt8], lastDate: Date) {
        self.definition = definition
        self.valueData = valueData
        self.lastDate = lastDate
    }

    /// A register from its definition and the words as read.
    public init(definition: RegisterDefinition, words: [UInt16], lastDate: Date) {
        self.init(definition: definition, valueData: words.bigEndianBytes, lastDate: lastDate)
    }

    /// Stable, unique key of the register.
    public var registerId: String { definition.registerId }
    /// Human-readable name (falls back to the registerId).
    public var name: String { definition.displayName }
    /// 0-based PDU address of the first register.
    public var address: Int { definition.address }
    /// Number of 16-bit registers (derived from the type).
    public var length: Int { definition.length }
    /// The raw words as read off the wire.
    public var words: [UInt16] { [UInt16](bigEndianBytes: valueData) }
    /// The decoded value (integer, float, text or bytes).
    public var value: RegisterValue { RegisterCodec.decode(words, as: definition) }
    /// The text of a string register, nil for other types or when the bytes are not valid UTF-8.
    public var utf8Value: String? {
        guard case .string(let n) = definition.type else { return nil }
        let bytes = RegisterCodec.valueBytes(words, definition).prefix(n)
        let text = bytes.prefix { $0 != 0 }
        return String(validating: text, as: UTF8.self)
    }
    /// Whether the register holds its "not set" value.
    public var isUnset: Bool { RegisterCodec.isUnset(words, for: definition) }
    /// Problems with the value against the definition (empty when valid or unset).
    public var problems: [RegisterProblem] { RegisterValidator.problems(self) }
}

extension Register: Codable {
    private enum CodingKeys: String, CodingKey {
        case definition, valueData, lastDate, value
    }

    /// Decodes `definition`, `valueData` (hex) and `lastDate`; an informational `value` is ignored.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        definition = try c.decode(RegisterDefinition.self, forKey: .definition)
        let hex = try c.decode(String.self, forKey: .valueData)
        guard let bytes = [UInt8](hexString: hex) else {
            throw DecodingError.dataCorruptedError(
                forKey: .valueData, in: c, debugDescription: "valueData \"\(hex)\" is not hex")
        }
        valueData = bytes
        lastDate = try c.decode(Date.self, forKey: .lastDate)
    }

    /// Encodes `valueData` as hex and adds the decoded `value` for readers.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(definition, forKey: .definition)
        try c.encode(valueData.hexString, forKey: .valueData)
        try c.encode(lastDate, forKey: .lastDate)
        try c.encode(value, forKey: .value)
    }
}
