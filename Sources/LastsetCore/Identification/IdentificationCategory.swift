import LastsetFormats

/// The Read Device ID code of an FC43/14 request: a stream of one category's objects, or one object.
public enum IdentificationCategory: UInt8, Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// 01: the basic objects (VendorName, ProductCode, MajorMinorRevision), which every device that has FC43 holds.
    case basic = 0x01
    /// 02: basic and regular objects (0x00–0x7F).
    case regular = 0x02
    /// 03: basic, regular and extended (private) objects.
    case extended = 0x03

    /// `basic`, `regular`, `extended`.
    public var description: String {
        switch self {
        case .basic: return "basic"
        case .regular: return "regular"
        case .extended: return "extended"
        }
    }

    /// Encoded as its name (`"extended"`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    /// Decoded from its name.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let name = try c.decode(String.self)
        guard let category = [Self.basic, .regular, .extended].first(where: { $0.description == name }) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "unknown category \"\(name)\"")
        }
        self = category
    }

    /// Ordered by what they hold (basic < regular < extended).
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

extension IdentificationCategory: JSONFieldValue {
    /// Its name, as `encode(to:)` writes it.
    @inlinable
    public func write(to w: inout JSONWriter) { w.string(description) }
}
