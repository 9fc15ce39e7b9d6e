import LastsetFormats

/// One object of a device's identification as it answered it: the id and its bytes (the specification says
/// ASCII text; a private object may hold anything).
public struct IdentificationObject: Sendable, Hashable {
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
}

extension IdentificationObject: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = IdentificationObject(id: .vendorName, value: [])

    /// `{"hex":"5052532D323030","id":"ProductCode","objectId":1,"text":"PRS-200"}` (`text` only when it is text).
    /// Decoded from the id's number and the hex: `id` and `text` are derived from them, read and set aside.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("hex", &r.value, as: HexBytes.self)
        var name = r.id.name
        try f.field("id", &name, absent: name)
        try f.field("objectId", &r.id, as: ObjectNumber.self)
        var text = r.text
        try f.field("text", &text)
    }

    /// An object's bytes as upper-case hex.
    public enum HexBytes: JSONFieldCodec {
        /// The written form.
        public static func form(_ value: [UInt8]) -> String { value.hexString }

        /// The value of a written form; refused with the bad value quoted.
        public static func value(_ form: String) throws(JSONFieldProblem) -> [UInt8] {
            guard let bytes = [UInt8](hexString: form) else { throw JSONFieldProblem("not hex: \"\(form)\"") }
            return bytes
        }
    }

    /// An object's id as its number (0-255).
    public enum ObjectNumber: JSONFieldCodec {
        /// The written form.
        public static func form(_ value: IdentificationObjectId) -> Int { Int(value.rawValue) }

        /// The value of a written form; refused with the bad value quoted.
        public static func value(_ form: Int) throws(JSONFieldProblem) -> IdentificationObjectId {
            guard let number = UInt8(exactly: form) else { throw JSONFieldProblem("object id \(form) is not 0-255") }
            return IdentificationObjectId(rawValue: number)
        }
    }
}
