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
        // Written straight into the string (a value of up to 7 bytes is a small string, no allocation):
        // this runs for every register of every capture and replay phase.
        withUnsafeBufferPointer { ValueHex.string(bytes: $0) }
    }

    /// Parses an even-length hex string; nil when it is not one.
    public init?(hexString: String) {
        var hexString = hexString
        guard let bytes = hexString.withUTF8({ ValueHex.bytes(utf8: $0) }) else { return nil }
        self = bytes
    }
}

extension Array where Element == UInt16 {
    /// The `valueData` hex of the words (each word high byte first): `bigEndianBytes.hexString`,
    /// without the intermediate byte array.
    public var hexString: String { withUnsafeBufferPointer { ValueHex.string(words: $0) } }

    /// Words from `valueData` hex: `[UInt16](bigEndianBytes: [UInt8](hexString: hex))` (an odd trailing
    /// byte padded with 0), without the intermediate byte array; nil when `hex` is not even-length hex.
    public init?(valueDataHex hex: String) {
        var hex = hex
        guard let words = hex.withUTF8({ ValueHex.words(utf8: $0) }) else { return nil }
        self = words
    }
}

/// Hex of register values (upper case, no separators) without intermediate arrays: the helpers behind
/// `hexString` and `init?(hexString:)`, usable on a slice of a page readout.
public enum ValueHex {
    @inline(__always)
    static func digit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 48 + nibble : 55 + nibble }

    /// Upper-case hex of `bytes`.
    public static func string(bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            var i = 0
            for b in bytes {
                out[i] = digit(b >> 4)
                out[i + 1] = digit(b & 0x0F)
                i += 2
            }
            return i
        }
    }

    /// Upper-case hex of `words`, each high byte first (the `valueData` form).
    public static func string(words: UnsafeBufferPointer<UInt16>) -> String {
        String(unsafeUninitializedCapacity: words.count * 4) { out in
            var i = 0
            for w in words {
                out[i] = digit(UInt8(truncatingIfNeeded: w >> 12))
                out[i + 1] = digit(UInt8(truncatingIfNeeded: w >> 8) & 0x0F)
                out[i + 2] = digit(UInt8(truncatingIfNeeded: w >> 4) & 0x0F)
                out[i + 3] = digit(UInt8(truncatingIfNeeded: w) & 0x0F)
                i += 4
            }
            return i
        }
    }

    /// True when `hex` is only upper-case hex digits (as `string(words:)` writes them): then it is its
    /// own canonical form and need not be made again from its words.
    public static func isUpperCase(_ hex: String) -> Bool {
        hex.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 70) }
    }

    /// The bytes of even-length hex (either case); nil when it is not that.
    public static func bytes(utf8 chars: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard chars.count % 2 == 0 else { return nil }
        var ok = true
        let out = [UInt8](unsafeUninitializedCapacity: chars.count / 2) { buffer, initialized in
            var i = 0
            while i < chars.count {
                guard let hi = hexNibble(chars[i]), let lo = hexNibble(chars[i + 1]) else {
                    ok = false
                    break
                }
                buffer[i / 2] = hi << 4 | lo
                i += 2
            }
            initialized = i / 2
        }
        return ok ? out : nil
    }

    /// Calls `body` with the words of even-length hex (as `words(utf8:)` gives them) in a temporary
    /// buffer, no array: decoding a value read back costs no allocation. nil when it is not that hex.
    @inlinable
    public static func withWords<R>(hex: String, _ body: (UnsafeBufferPointer<UInt16>) -> R) -> R? {
        var hex = hex
        return hex.withUTF8 { chars -> R? in
            guard chars.count % 2 == 0 else { return nil }
            let count = (chars.count / 2 + 1) / 2
            return withUnsafeTemporaryAllocation(of: UInt16.self, capacity: max(1, count)) { buffer -> R? in
                var i = 0
                var k = 0
                while i < chars.count {
                    guard let a = hexNibble(chars[i]), let b = hexNibble(chars[i + 1]) else { return nil }
                    var word = UInt16(a << 4 | b) << 8
                    if i + 2 < chars.count {
                        guard let c = hexNibble(chars[i + 2]), let d = hexNibble(chars[i + 3]) else { return nil }
                        word |= UInt16(c << 4 | d)
                    }
                    buffer[k] = word
                    k += 1
                    i += 4
                }
                return body(UnsafeBufferPointer(rebasing: buffer[0..<k]))
            }
        }
    }

    /// The words of even-length hex (either case), high byte first, an odd trailing byte padded with 0;
    /// nil when it is not even-length hex.
    public static func words(utf8 chars: UnsafeBufferPointer<UInt8>) -> [UInt16]? {
        guard chars.count % 2 == 0 else { return nil }
        let byteCount = chars.count / 2
        var ok = true
        let out = [UInt16](unsafeUninitializedCapacity: (byteCount + 1) / 2) { buffer, initialized in
            var i = 0
            var k = 0
            while i < chars.count {
                guard let a = hexNibble(chars[i]), let b = hexNibble(chars[i + 1]) else {
                    ok = false
                    break
                }
                var word = UInt16(a << 4 | b) << 8
                if i + 2 < chars.count {
                    guard let c = hexNibble(chars[i + 2]), let d = hexNibble(chars[i + 3]) else {
                        ok = false
                        break
                    }
                    word |= UInt16(c << 4 | d)
                }
                buffer[k] = word
                k += 1
                i += 4
            }
            initialized = k
        }
        return ok ? out : nil
    }
}

@inline(__always) @usableFromInline
func hexNibble(_ c: UInt8) -> UInt8? {
    // Comparisons, not range patterns (those went through a generic `contains` per character).
    if c >= 48 && c <= 57 { return c &- 48 }
    if c >= 65 && c <= 70 { return c &- 55 }
    if c >= 97 && c <= 102 { return c &- 87 }
    return nil
}
