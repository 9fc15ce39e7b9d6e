import Foundation

/// A value bound to a statement's parameter.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case text(String)
    /// Text given as its UTF-8 bytes (bound as TEXT without making a `String` of it: the records' JSON).
    case utf8([UInt8])
    case blob([UInt8])

    /// An integer, or NULL for nil.
    public static func integer(_ v: Int?) -> SQLValue { v.map { .integer(Int64($0)) } ?? .null }
    /// A text, or NULL for nil.
    public static func text(_ v: String?) -> SQLValue { v.map { .text($0) } ?? .null }
    /// A blob of `data`'s bytes.
    public static func blob(_ data: Data) -> SQLValue { .blob([UInt8](data)) }
}
