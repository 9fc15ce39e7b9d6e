import LastsetFormats

/// One object of Modbus Read Device Identification (FC43/14): 0x00–0x06 are the standard objects (basic
/// 0x00–0x02, regular 0x03–0x06), 0x07–0x7F are reserved, 0x80–0xFF are the vendor's private (extended) objects.
public struct IdentificationObjectId: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The object id on the wire.
    public var rawValue: UInt8

    /// The object with id `rawValue`.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The standard objects' names, as the Modbus specification spells them (index = object id).
    public static let standardNames = [
        "VendorName", "ProductCode", "MajorMinorRevision", "VendorUrl", "ProductName", "ModelName", "UserApplicationName",
    ]

    /// VendorName (0x00, basic).
    public static let vendorName = IdentificationObjectId(rawValue: 0x00)
    /// ProductCode (0x01, basic).
    public static let productCode = IdentificationObjectId(rawValue: 0x01)
    /// MajorMinorRevision (0x02, basic).
    public static let majorMinorRevision = IdentificationObjectId(rawValue: 0x02)

    /// The object a config or the CLI names: a standard name (`ProductCode`), or a private object as `0x80`…`0xFF`.
    /// Reserved ids (0x07–0x7F) and anything else are nil.
    public init?(name: String) {
        if let i = Self.standardNames.firstIndex(of: name) {
            rawValue = UInt8(i)
            return
        }
        let lower = name.lowercased()
        guard lower.hasPrefix("0x"), lower.count == 4, let id = UInt8(lower.dropFirst(2), radix: 16), id >= 0x80 else {
            return nil
        }
        rawValue = id
    }

    /// Which category the object belongs to.
    public var category: IdentificationCategory {
        switch rawValue {
        case 0x00...0x02: return .basic
        case 0x03...0x7F: return .regular
        default: return .extended
        }
    }

    /// Reserved by the specification (0x07–0x7F): no device may answer with one.
    public var isReserved: Bool { (0x07...0x7F).contains(rawValue) }

    /// `ProductCode`, or `0x81` for a private object (`0x07` for a reserved one).
    public var name: String {
        Int(rawValue) < Self.standardNames.count
            ? Self.standardNames[Int(rawValue)] : "0x" + String(rawValue, radix: 16, uppercase: true).leftPadded(to: 2)
    }

    /// The name.
    public var description: String { name }

    /// Ordered by id.
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// Encoded as its name.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(name)
    }

    /// Decoded from a name (`ProductCode`, `0x81`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let id = Self(name: text) ?? Self.reserved(text) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "unknown identification object \"\(text)\"")
        }
        self = id
    }

    /// A reserved id spelt `0x07`…`0x7F` (only as the API shows what a device sent).
    private static func reserved(_ text: String) -> Self? {
        let lower = text.lowercased()
        guard lower.hasPrefix("0x"), lower.count == 4, let id = UInt8(lower.dropFirst(2), radix: 16) else { return nil }
        return Self(rawValue: id)
    }
}

extension String {
    /// The string with zeros in front up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension IdentificationObjectId: JSONFieldValue {
    /// Its name, as `encode(to:)` writes it.
    @inlinable
    public func write(to w: inout JSONWriter) { w.string(name) }
}
