import LastsetFormats

/// What a device says it supports in its FC43/14 answers: the highest category it streams, and whether it also
/// answers a request for one object (individual access, the 0x80 bit).
public struct ConformityLevel: Sendable, Hashable, CustomStringConvertible {
    /// The highest category the device streams.
    public var category: IdentificationCategory
    /// Whether it answers Read Device ID code 04 (one object at a time).
    public var individualAccess: Bool

    /// Sets every field.
    public init(category: IdentificationCategory, individualAccess: Bool) {
        self.category = category
        self.individualAccess = individualAccess
    }

    /// The byte on the wire: 0x01–0x03, or 0x81–0x83 with individual access; any other byte is nil.
    public init?(byte: UInt8) {
        guard let category = IdentificationCategory(rawValue: byte & 0x7F) else { return nil }
        self.init(category: category, individualAccess: byte & 0x80 != 0)
    }

    /// The byte on the wire.
    public var byte: UInt8 { category.rawValue | (individualAccess ? 0x80 : 0) }

    /// `extended, individual access` or `basic`.
    public var description: String { category.description + (individualAccess ? ", individual access" : "") }
}

extension ConformityLevel: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = ConformityLevel(category: .basic, individualAccess: false)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("category", &r.category)
        try f.field("individualAccess", &r.individualAccess)
    }
}
