/// Converts between the registers' raw words and their decoded values, honouring word and byte order.
///
/// Words are handled in wire order (the order they are read from increasing addresses). `byteOrder`
/// swaps the two bytes inside each word; `wordOrder` reverses the words of a multi-register number.
/// Text (`string(n)`) and bytes (`raw(n)`) always run in address order: `wordOrder` does not apply to
/// them, `byteOrder` does (little puts the first character in the low byte).
///
/// The "not set" default is the type's maximum: 0xFFFF (u16), 0x7FFF (s16), 0xFFFFFFFF (u32),
/// 0x7FFFFFFF (s32), UInt64.max (u64), Int64.max (s64), `Float.greatestFiniteMagnitude` (f32) and
/// `Double.greatestFiniteMagnitude` (f64) — for floats all bits set (a NaN, what a blank EEPROM
/// reads) is "not set" too — and all 0xFF bytes for string and raw. `UnsetPattern` adds the other
/// conventions (`unsetStyle: "sunspec"`).
public enum RegisterCodec {
    /// Decodes `words` (exactly `definition.length` of them, as read off the wire) into a value.
    ///
    /// Missing words read as 0 and extra words are ignored; `RegisterValidator` reports a wrong length.
    /// Text is the UTF-8 up to the first NUL (invalid sequences become U+FFFD; the validator flags them).
    public static func decode(_ words: [UInt16], as definition: RegisterDefinition) -> RegisterValue {
        words.withUnsafeBufferPointer { decode($0, as: definition) }
    }

    /// `decode` of words in place (a slice of a page readout), without copying them out first.
    public static func decode(_ words: UnsafeBufferPointer<UInt16>, as definition: RegisterDefinition) -> RegisterValue {
        decode(words, layout: RegisterLayout(definition))
    }

    /// `decode` by the register's layout alone (type, word and byte order: a few bytes, where a whole
    /// definition is a dozen strings and arrays to copy).
    public static func decode(_ words: UnsafeBufferPointer<UInt16>, layout definition: RegisterLayout) -> RegisterValue {
        let type = definition.type
        switch type {
        case .u16, .u32, .u64:
            return .unsigned(numberBits(words, definition))
        case .s16, .s32, .s64:
            let raw = numberBits(words, definition)
            let bits = type.registerCount * 16
            // Sign-extend from the type's width.
            let shift = UInt64(64 - bits)
            return .signed(Int64(bitPattern: raw << shift) >> Int64(shift))
        case .f32:
            return .float(Double(Float(bitPattern: UInt32(truncatingIfNeeded: numberBits(words, definition)))))
        case .f64:
            return .float(Double(bitPattern: numberBits(words, definition)))
        case .string(let n):
            let text = valueBytes(Array(words), definition).prefix(n)
            let end = text.firstIndex(of: 0) ?? text.endIndex
            return .text(String(decoding: text[text.startIndex..<end], as: UTF8.self))
        case .raw(let n):
            return .bytes(Array(valueBytes(Array(words), definition).prefix(n)))
        }
    }

    /// The value's bytes by layout (see `valueBytes(_:_:)`).
    private static func valueBytes(_ words: [UInt16], _ definition: RegisterLayout) -> [UInt8] {
        let count = definition.type.registerCount
        var ordered = Array(words.prefix(count))
        if ordered.count < count { ordered += [UInt16](repeating: 0, count: count - ordered.count) }
        if definition.byteOrder == .little { ordered = ordered.map(\.byteSwapped) }
        if definition.wordOrder == .little && definition.type.isNumeric { ordered.reverse() }
        return ordered.bigEndianBytes
    }

    /// A number's bits from its words (missing words read as 0, extra ones ignored), byte and word
    /// order applied: what `valueBytes` read as one big-endian integer gives, without the arrays.
    @inline(__always)
    private static func numberBits(_ words: UnsafeBufferPointer<UInt16>, _ definition: RegisterLayout) -> UInt64 {
        let count = definition.type.registerCount
        let swapBytes = definition.byteOrder == .little
        let reverse = definition.wordOrder == .little
        var raw: UInt64 = 0
        for i in 0..<count {
            let k = reverse ? count - 1 - i : i
            var w = k < words.count ? words[k] : 0
            if swapBytes { w = w.byteSwapped }
            raw = raw << 16 | UInt64(w)
        }
        return raw
    }

    /// Encodes a value into the words to write; throws when it does not fit the type.
    ///
    /// Integers accept `.unsigned`, `.signed` and integral `.float` values within the type's range;
    /// floats accept any finite number (f32 rounds to the nearest Float, but must not overflow);
    /// `string(n)` accepts text of at most n UTF-8 bytes without NUL (padded with NUL);
    /// `raw(n)` accepts exactly n bytes.
    public static func encode(_ value: RegisterValue, as definition: RegisterDefinition) throws(CodecError) -> [UInt16] {
        func fail(_ reason: String) -> CodecError {
            CodecError(registerId: definition.registerId, value: value.description, reason: reason)
        }
        let type = definition.type
        var bytes: [UInt8]
        switch type {
        case .u16, .u32, .u64:
            let width = type.byteCount * 8
            let maximum: UInt64 = width == 64 ? .max : (1 << UInt64(width)) - 1
            let v: UInt64
            switch value {
            case .unsigned(let u): v = u
            case .signed(let s):
                guard s >= 0 else { throw fail("\(type) cannot be negative") }
                v = UInt64(s)
            case .float(let d):
                guard d.isFinite, d == d.rounded(), d >= 0, d < 18_446_744_073_709_551_616.0 else {
                    throw fail("\(type) needs a whole number in 0...\(maximum)")
                }
                v = UInt64(d)
            case .text, .bytes: throw fail("\(type) needs a number")
            }
            guard v <= maximum else { throw fail("out of range 0...\(maximum) for \(type)") }
            bytes = bigEndianBytes(v, count: type.byteCount)
        case .s16, .s32, .s64:
            let width = type.byteCount * 8
            let maximum: Int64 = width == 64 ? .max : (1 << Int64(width - 1)) - 1
            let minimum: Int64 = width == 64 ? .min : -(1 << Int64(width - 1))
            let v: Int64
            switch value {
            case .signed(let s): v = s
            case .unsigned(let u):
                guard u <= UInt64(Int64.max) else { throw fail("out of range \(minimum)...\(maximum) for \(type)") }
                v = Int64(u)
            case .float(let d):
                guard d.isFinite, d == d.rounded(), d >= -9_223_372_036_854_775_808.0, d < 9_223_372_036_854_775_808.0 else {
                    throw fail("\(type) needs a whole number in \(minimum)...\(maximum)")
                }
                v = Int64(d)
            case .text, .bytes: throw fail("\(type) needs a number")
            }
            guard v >= minimum, v <= maximum else { throw fail("out of range \(minimum)...\(maximum) for \(type)") }
            bytes = bigEndianBytes(UInt64(bitPattern: v), count: type.byteCount)
        case .f32, .f64:
            guard let d = value.number else { throw fail("\(type) needs a number") }
            guard d.isFinite else { throw fail("\(type) must be finite") }
            if type == .f32 {
                let f = Float(d)
                guard f.isFinite else { throw fail("too large for f32") }
                bytes = bigEndianBytes(UInt64(f.bitPattern), count: 4)
            } else {
                bytes = bigEndianBytes(d.bitPattern, count: 8)
            }
        case .string(let n):
            guard case .text(let text) = value else { throw fail("string(\(n)) needs text") }
            let utf8 = Array(text.utf8)
            guard utf8.count <= n else { throw fail("text is \(utf8.count) UTF-8 bytes, longer than \(n)") }
            guard !utf8.contains(0) else { throw fail("text must not contain NUL") }
            bytes = utf8 + [UInt8](repeating: 0, count: type.byteCount - utf8.count)
        case .raw(let n):
            guard case .bytes(let raw) = value else { throw fail("raw(\(n)) needs bytes") }
            guard raw.count == n else { throw fail("raw(\(n)) needs exactly \(n) bytes, got \(raw.count)") }
            bytes = raw + [UInt8](repeating: 0, count: type.byteCount - raw.count)
        }
        return wireWords(bytes, definition)
    }

    /// The words of the register's "not set" value (its `unset`, else the type's maximum).
    ///
    /// An `unset` that does not fit the type (the config checker reports it) falls back to the maximum.
    /// `{hex: "…"}` is the `valueData` form (the words as read, high byte first) for numbers, and the
    /// n bytes of the value for `string(n)` and `raw(n)`.
    public static func unsetWords(for definition: RegisterDefinition) -> [UInt16] {
        if case .bytes(let bytes)? = definition.unset, bytes.count == definition.type.byteCount, definition.type.isNumeric {
            return [UInt16](bigEndianBytes: bytes)
        } else if case .bytes(let bytes)? = definition.unset, case .string(let n) = definition.type, bytes.count == n {
            return wireWords(bytes + [UInt8](repeating: 0, count: definition.type.byteCount - n), definition)
        } else if let unset = definition.unset, let words = try? encode(unset, as: definition) {
            return words
        }
        return defaultUnsetWords(for: definition)
    }

    /// The words of the type's maximum, ignoring any `unset` override.
    public static func defaultUnsetWords(for definition: RegisterDefinition) -> [UInt16] {
        let type = definition.type
        let bytes: [UInt8]
        switch type {
        case .u16, .u32, .u64, .string, .raw:
            bytes = [UInt8](repeating: 0xFF, count: type.byteCount)
        case .s16, .s32, .s64:
            bytes = [0x7F] + [UInt8](repeating: 0xFF, count: type.byteCount - 1)
        case .f32:
            bytes = bigEndianBytes(UInt64(Float.greatestFiniteMagnitude.bitPattern), count: 4)
        case .f64:
            bytes = bigEndianBytes(Double.greatestFiniteMagnitude.bitPattern, count: 8)
        }
        return wireWords(bytes, definition)
    }

    /// Whether the words hold the register's "not set" value.
    public static func isUnset(_ words: [UInt16], for definition: RegisterDefinition) -> Bool {
        // All-0xFF types need no encoding (this runs for every register of every capture and replay).
        if definition.unset == nil {
            switch definition.type {
            case .u16, .u32, .u64, .string, .raw: return words.count == definition.length && words.allSatisfy { $0 == 0xFFFF }
            case .f32, .f64:
                // All bits set (a NaN) is what a blank EEPROM reads; the largest finite value is the other form.
                if words.count == definition.length && words.allSatisfy({ $0 == 0xFFFF }) { return true }
            default: break
            }
        }
        return words == unsetWords(for: definition)
    }

    /// The value's bytes, most significant (or first character) first, from the words off the wire.
    public static func valueBytes(_ words: [UInt16], _ definition: RegisterDefinition) -> [UInt8] {
        valueBytes(words, RegisterLayout(definition))
    }

    /// The words to put on the wire for the value's bytes (most significant or first character first).
    public static func wireWords(_ bytes: [UInt8], _ definition: RegisterDefinition) -> [UInt16] {
        var words = [UInt16](bigEndianBytes: bytes)
        if definition.wordOrder == .little && definition.type.isNumeric { words.reverse() }
        if definition.byteOrder == .little { words = words.map(\.byteSwapped) }
        return words
    }

    private static func bigEndianBytes(_ value: UInt64, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (count - 1 - $0))) }
    }
}

/// What decoding a register's words needs of its definition: the type, word and byte order.
public struct RegisterLayout: Hashable, Sendable {
    public var type: RegisterType
    public var wordOrder: WordOrder?
    public var byteOrder: ByteOrder?
    /// A layout from its parts.
    public init(type: RegisterType, wordOrder: WordOrder?, byteOrder: ByteOrder?) {
        self.type = type
        self.wordOrder = wordOrder
        self.byteOrder = byteOrder
    }
    /// The layout of a definition.
    public init(_ definition: RegisterDefinition) {
        type = definition.type
        wordOrder = definition.wordOrder
        byteOrder = definition.byteOrder
    }
}

extension RegisterType {
    /// Whether the type is a number (integer or float), to which word order applies.
    public var isNumeric: Bool {
        switch self {
        case .string, .raw: return false
        default: return true
        }
    }
}

/// A value that cannot be encoded as a register's type; names the register and quotes the value.
public struct CodecError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The register the value was meant for.
    public var registerId: String
    /// The value as given.
    public var value: String
    /// Why it does not fit.
    public var reason: String
    /// An error from its parts.
    public init(registerId: String, value: String, reason: String) {
        self.registerId = registerId
        self.value = value
        self.reason = reason
    }
    /// `id: cannot encode value: reason`.
    public var description: String { "\(registerId): cannot encode \(value): \(reason)" }
}

extension Array where Element == UInt16 {
    /// The words as bytes, high byte first: the `valueData` form.
    public var bigEndianBytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count * 2) { out, initialized in
            for (i, w) in enumerated() {
                out[2 * i] = UInt8(w >> 8)
                out[2 * i + 1] = UInt8(w & 0xFF)
            }
            initialized = count * 2
        }
    }

    /// Words from `valueData` bytes (high byte first); an odd trailing byte is padded with 0.
    public init(bigEndianBytes bytes: [UInt8]) {
        var words: [UInt16] = []
        words.reserveCapacity((bytes.count + 1) / 2)
        var i = 0
        while i < bytes.count {
            let hi = UInt16(bytes[i])
            let lo = i + 1 < bytes.count ? UInt16(bytes[i + 1]) : 0
            words.append(hi << 8 | lo)
            i += 2
        }
        self = words
    }
}
