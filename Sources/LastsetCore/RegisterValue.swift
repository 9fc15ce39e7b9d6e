import Foundation

/// A decoded register value: the `value` / `utf8Value` views of `valueData`.
public enum RegisterValue: Hashable, Sendable, CustomStringConvertible {
    case unsigned(UInt64)
    case signed(Int64)
    case float(Double)
    case text(String)
    case bytes([UInt8])

    /// The value as a Double, for range checks and display (nil for text and bytes).
    public var number: Double? {
        switch self {
        case .unsigned(let v): return Double(v)
        case .signed(let v): return Double(v)
        case .float(let v): return v
        case .text, .bytes: return nil
        }
    }

    public var description: String {
        switch self {
        case .unsigned(let v): return String(v)
        case .signed(let v): return String(v)
        case .float(let v): return String(v)
        case .text(let s): return "\"\(s)\""
        case .bytes(let b): return "0x" + b.map { String(format: "%02X", $0) }.joined()
        }
    }
}

extension RegisterValue: Codable {
    /// Numbers encode as JSON numbers, text as a string, bytes as `{"hex": "…"}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let u = try? c.decode(UInt64.self) {
            self = .unsigned(u)
        } else if let s = try? c.decode(Int64.self) {
            self = .signed(s)
        } else if let d = try? c.decode(Double.self) {
            self = .float(d)
        } else if let t = try? c.decode(String.self) {
            self = .text(t)
        } else {
            let hex = try c.decode([String: String].self)["hex"] ?? ""
            guard let bytes = [UInt8](hexString: hex) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "bad hex \"\(hex)\"")
            }
            self = .bytes(bytes)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .unsigned(let v): try c.encode(v)
        case .signed(let v): try c.encode(v)
        case .float(let v): try c.encode(v)
        case .text(let s): try c.encode(s)
        case .bytes(let b): try c.encode(["hex": b.hexString])
        }
    }
}

extension Array where Element == UInt8 {
    /// Upper-case hex without separators.
    public var hexString: String {
        // A table lookup, not String(format:): this runs for every register of every capture and replay.
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses an even-length hex string; nil when it is not one.
    public init?(hexString: String) {
        let chars = Array(hexString.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = hexNibble(chars[i]), let lo = hexNibble(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        self = out
    }
}

private func hexNibble(_ c: UInt8) -> UInt8? {
    switch c {
    case 48...57: return c - 48
    case 65...70: return c - 55
    case 97...102: return c - 87
    default: return nil
    }
}
