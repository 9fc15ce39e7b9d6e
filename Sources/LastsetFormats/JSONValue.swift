import Foundation

/// A parsed JSON (or JSON5) value, kept generic so a checker can walk it and report every problem.
public indirect enum JSONValue: Hashable, Sendable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A whole number that fits Int64.
    case int(Int64)
    /// A whole number above Int64.max.
    case uint(UInt64)
    /// Any other number (fractions, exponents, ±Infinity, NaN).
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object (key order is not kept).
    case object([String: JSONValue])

    /// Parses JSON5 text (comments, trailing commas, unquoted keys, hex numbers) strictly: invalid
    /// UTF-8, a repeated key or nesting deeper than 64 is an error, never a trap or a silent choice.
    public static func parse(json5 data: Data) throws(JSONSyntaxError) -> JSONValue {
        try StrictJSONParser.parse([UInt8](data), syntax: .json5)
    }

    /// Parses JSON (RFC 8259) text strictly (see `StrictJSONParser`).
    public static func parse(json data: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        try StrictJSONParser.parse(data, syntax: .json)
    }

    /// Compact JSON text of the value, as quoted in error messages.
    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .uint(let u): return String(u)
        case .double(let d): return d.isFinite ? formatNumber(d) : String(d)
        case .string(let s): return Self.quote(s)
        case .array(let items): return "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .object(let fields):
            return "{" + fields.keys.sorted().map { "\(Self.quote($0)): \(fields[$0]!.description)" }.joined(separator: ", ")
                + "}"
        }
    }

    /// The description cut to `limit` characters with an ellipsis, for messages.
    public func abbreviated(_ limit: Int = 60) -> String {
        let text = description
        return text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    /// The JSON type's name ("string", "integer", "number", "object", …) for messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .uint: return "integer"
        case .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// The value as a Double when it is a number.
    public var number: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .uint(let u): return Double(u)
        case .double(let d): return d
        default: return nil
        }
    }

    /// A string in double quotes with JSON escapes.
    public static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04X", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

extension JSONValue: Decodable {
    /// Decodes any JSON value; integers stay exact (Int64, or UInt64 above Int64.max).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .int(i)
        } else if let u = try? c.decode(UInt64.self) {
            self = .uint(u)
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }
}

/// A number as written in configs: integral values without ".0".
public func formatNumber(_ d: Double) -> String {
    if d.isFinite, d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
    return String(d)
}
