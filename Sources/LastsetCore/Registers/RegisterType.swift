import LastsetFormats

/// The encoding of a register's value, as declared in the register map (`u16`, `string(16)`, …).
public enum RegisterType: Hashable, Sendable, CustomStringConvertible {
    case u16, s16, u32, s32, u64, s64, f32, f64
    /// `n` bytes of text, two per register.
    case string(Int)
    /// `n` opaque bytes, two per register.
    case raw(Int)

    /// Number of 16-bit Modbus registers the type occupies.
    public var registerCount: Int {
        switch self {
        case .u16, .s16: return 1
        case .u32, .s32, .f32: return 2
        case .u64, .s64, .f64: return 4
        case .string(let n), .raw(let n): return (n + 1) / 2
        }
    }

    /// Number of bytes of `valueData` for this type.
    public var byteCount: Int { registerCount * 2 }

    /// Whether values are integers (as opposed to floats, text or bytes).
    public var isInteger: Bool {
        switch self {
        case .u16, .s16, .u32, .s32, .u64, .s64: return true
        default: return false
        }
    }

    /// Whether the type is signed (integers) or floating point.
    public var isSigned: Bool {
        switch self {
        case .s16, .s32, .s64, .f32, .f64: return true
        default: return false
        }
    }

    /// The spelling used in configs and templates.
    public var description: String {
        switch self {
        case .u16: return "u16"
        case .s16: return "s16"
        case .u32: return "u32"
        case .s32: return "s32"
        case .u64: return "u64"
        case .s64: return "s64"
        case .f32: return "f32"
        case .f64: return "f64"
        case .string(let n): return "string(\(n))"
        case .raw(let n): return "raw(\(n))"
        }
    }

    /// Largest byte length accepted for `string(n)` / `raw(n)`: one full read (125 registers).
    public static let maxByteLength = 250

    /// Parses `u16`, `string(16)`, …; nil when the spelling is unknown or the length is out of 1...250.
    public init?(parsing text: String) {
        switch text {
        case "u16": self = .u16
        case "s16": self = .s16
        case "u32": self = .u32
        case "s32": self = .s32
        case "u64": self = .u64
        case "s64": self = .s64
        case "f32": self = .f32
        case "f64": self = .f64
        default:
            for (prefix, make) in [("string(", RegisterType.string), ("raw(", RegisterType.raw)] {
                guard text.hasPrefix(prefix), text.hasSuffix(")") else { continue }
                let inner = text.dropFirst(prefix.count).dropLast()
                guard let n = Int(inner), n >= 1, n <= RegisterType.maxByteLength,
                    String(n) == inner
                else { return nil }
                self = make(n)
                return
            }
            return nil
        }
    }
}

extension RegisterType: JSONFieldValue {
    /// Its name (`u32`, `string(8)`).
    public func write(to w: inout JSONWriter) { w.string(description) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let parsed = RegisterType(parsing: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "unknown register type \"\(text)\"")
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
