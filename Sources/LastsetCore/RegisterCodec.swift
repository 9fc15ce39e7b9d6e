/// Converts between the registers' raw words and their decoded values, honouring word and byte order.
/// STUB: to be implemented.
public enum RegisterCodec {
    /// Decodes `words` (exactly `definition.length` of them, as read off the wire) into a value.
    public static func decode(_ words: [UInt16], as definition: RegisterDefinition) -> RegisterValue {
        fatalError("unimplemented")
    }

    /// Encodes a value into the words to write; throws when it does not fit the type.
    public static func encode(_ value: RegisterValue, as definition: RegisterDefinition) throws(CodecError) -> [UInt16] {
        fatalError("unimplemented")
    }

    /// The words of the register's "not set" value (its `unset`, else the type's maximum).
    public static func unsetWords(for definition: RegisterDefinition) -> [UInt16] {
        fatalError("unimplemented")
    }

    /// Whether the words hold the register's "not set" value.
    public static func isUnset(_ words: [UInt16], for definition: RegisterDefinition) -> Bool {
        words == unsetWords(for: definition)
    }
}

/// A value that cannot be encoded as a register's type; names the register and quotes the value.
public struct CodecError: Error, Hashable, Sendable, CustomStringConvertible {
    public var registerId: String
    public var value: String
    public var reason: String
    public init(registerId: String, value: String, reason: String) {
        self.registerId = registerId
        self.value = value
        self.reason = reason
    }
    public var description: String { "\(registerId): cannot encode \(value): \(reason)" }
}

extension Array where Element == UInt16 {
    /// The words as bytes, high byte first: the `valueData` form.
    public var bigEndianBytes: [UInt8] { flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }

    /// Words from `valueData` bytes (high byte first); an odd trailing byte is padded with 0.
    public init(bigEndianBytes bytes: [UInt8]) {
        var words: [UInt16] = []
        words.reserveCapacity((bytes.count + 1) / 2)
        var i = 0
        while i < bytes.count {
            let hi = UInt16(bytes[i])
            let lo = i + 1 < bytes.count ? UInt16(bytes[i + 1]) : 0
            words.append(hi << 8 | lo)
            i += 2
        }
        self = words
    }
}
