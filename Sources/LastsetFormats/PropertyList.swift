/// A property list value (binary `bplist00` or XML), as read by `PropertyListReader`.
///
/// `uid` is the reference type NSKeyedArchiver uses between its objects (`CF$UID` in XML).
public indirect enum PropertyList: Hashable, Sendable {
    /// A string.
    case string(String)
    /// An integer (plists hold at most 64-bit signed integers here; larger ones are refused).
    case integer(Int64)
    /// A floating-point number.
    case real(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// A date, as seconds since 2001-01-01 00:00:00 UTC (Foundation's reference date).
    case date(Double)
    /// Raw bytes.
    case data([UInt8])
    /// An array (binary sets are read as arrays).
    case array([PropertyList])
    /// A dictionary with string keys.
    case dictionary([String: PropertyList])
    /// A keyed archiver's object reference (an index into `$objects`).
    case uid(UInt64)

    /// The value's kind, for messages ("a string", "data", …).
    public var kindName: String {
        switch self {
        case .string: return "a string"
        case .integer: return "an integer"
        case .real: return "a real number"
        case .bool: return "a boolean"
        case .date: return "a date"
        case .data: return "data"
        case .array: return "an array"
        case .dictionary: return "a dictionary"
        case .uid: return "an object reference"
        }
    }
}

/// A property list that cannot be read: what is wrong and, where known, where.
public struct PropertyListError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, e.g. "object 12 at offset 400: array runs past the object area".
    public var reason: String
    /// An error with its reason.
    public init(_ reason: String) { self.reason = reason }
    /// The reason.
    public var description: String { reason }
}
