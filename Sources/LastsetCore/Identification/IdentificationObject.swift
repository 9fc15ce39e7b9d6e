/// One object of a device's identification as it answered it: the id and its bytes (the specification says
/// ASCII text; a private object may hold anything).
public struct IdentificationObject: Sendable, Hashable, Codable {
    /// Which object.
    public var id: IdentificationObjectId
    /// Its value, byte for byte (at most 249 bytes: one answer's room).
    public var value: [UInt8]

    /// Sets every field.
    public init(id: IdentificationObjectId, value: [UInt8]) {
        self.id = id
        self.value = value
    }

    /// The value as text when it is UTF-8 without control characters, else nil (show `hex`).
    public var text: String? {
        guard let s = String(validating: value, as: UTF8.self) else { return nil }
        return s.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? nil : s
    }

    /// The value as upper-case hex.
    public var hex: String { value.hexString }

    /// The text, or `0x…` hex when it is not text.
    public var shown: String { text ?? "0x" + hex }

    private enum CodingKeys: String, CodingKey { case id, objectId, text, hex }

    /// `{"id":"ProductCode","objectId":1,"text":"PRS-200","hex":"5052532D323030"}` (`text` only when it is text).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(id.rawValue, forKey: .objectId)
        try c.encodeIfPresent(text, forKey: .text)
        try c.encode(hex, forKey: .hex)
    }

    /// Decoded from the API's form: the id and the hex (the text is derived from the bytes).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = IdentificationObjectId(rawValue: try c.decode(UInt8.self, forKey: .objectId))
        let hex = try c.decode(String.self, forKey: .hex)
        guard let bytes = [UInt8](hexString: hex) else {
            throw DecodingError.dataCorruptedError(forKey: .hex, in: c, debugDescription: "not hex: \"\(hex)\"")
        }
        value = bytes
    }
}
