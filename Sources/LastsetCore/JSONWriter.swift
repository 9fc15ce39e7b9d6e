import Foundation

/// Writes JSON text straight into a byte buffer. Foundation's `JSONEncoder` costs tens of
/// milliseconds for a 10,000-register template or audit record; capture and replay write one on every
/// job, so the formats on their hot path (templates, audit records) are written with this instead.
/// Output is valid JSON that `JSONDecoder` reads back into the same Codable types.
public struct JSONWriter {
    /// The text so far.
    public private(set) var bytes: [UInt8] = []
    /// Whether the next value in the current object or array needs a comma before it.
    private var needsComma = false
    /// The same for each enclosing object or array, innermost last (touched only at `{ [ ] }`: a field
    /// costs no array access).
    private var enclosing: [Bool] = []

    public init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    private var breakBeforeNext = false

    @inline(__always)
    private mutating func separator() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
        if breakBeforeNext {
            bytes.append(0x0A)
            breakBeforeNext = false
        }
    }

    /// `{` (as a value in the current array, or after `key`).
    public mutating func beginObject() {
        separator()
        bytes.append(UInt8(ascii: "{"))
        enclosing.append(needsComma)
        needsComma = false
    }

    /// `}`.
    public mutating func endObject() {
        needsComma = enclosing.popLast() ?? true
        bytes.append(UInt8(ascii: "}"))
    }

    /// `[`.
    public mutating func beginArray() {
        separator()
        bytes.append(UInt8(ascii: "["))
        enclosing.append(needsComma)
        needsComma = false
    }

    /// `]`.
    public mutating func endArray() {
        needsComma = enclosing.popLast() ?? true
        if breakBeforeNext {
            bytes.append(0x0A)
            breakBeforeNext = false
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The text followed by a line feed (a JSON line, a body), handed over without copying the buffer.
    public mutating func line() -> [UInt8] {
        bytes.append(0x0A)
        return bytes
    }

    /// Puts the next value (after its comma) on a new line: one item per line in long arrays.
    public mutating func lineBreak() { breakBeforeNext = true }

    /// `"name":` — the next value belongs to it. Names are the formats' own field names (literals: copied
    /// as they are, never escaped — this runs for every field of every register).
    public mutating func key(_ name: StaticString) {
        separator()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// `"name":` for a name known only at run time (escaped as any string).
    public mutating func key(dynamic name: String) {
        separator()
        appendString(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// `"key":"value"` with a run-time key.
    public mutating func field(dynamic key: String, _ value: String) {
        self.key(dynamic: key)
        string(value)
    }

    /// `"key":123` with a run-time key.
    public mutating func field<T: BinaryInteger>(dynamic key: String, _ value: T) {
        self.key(dynamic: key)
        int(value)
    }

    /// `"key":true` with a run-time key.
    public mutating func field(dynamic key: String, _ value: Bool) {
        self.key(dynamic: key)
        bool(value)
    }

    /// `"key":` and a register value, with a run-time key.
    public mutating func field(dynamic key: String, _ value: RegisterValue) {
        self.key(dynamic: key)
        self.value(value)
    }

    /// `"key":"value"`.
    public mutating func field(_ key: StaticString, _ value: String) {
        self.key(key)
        string(value)
    }

    /// `"key":123`.
    public mutating func field<T: BinaryInteger>(_ key: StaticString, _ value: T) {
        self.key(key)
        int(value)
    }

    /// `"key":true`.
    public mutating func field(_ key: StaticString, _ value: Bool) {
        self.key(key)
        bool(value)
    }

    /// `"key":` and a register value.
    public mutating func field(_ key: StaticString, _ value: RegisterValue) {
        self.key(key)
        self.value(value)
    }

    /// `"key":"2026-…Z"`.
    public mutating func field(_ key: StaticString, _ value: Date) {
        self.key(key)
        date(value)
    }

    /// A string value.
    public mutating func string(_ value: String) {
        separator()
        appendString(value)
    }

    /// An integer value.
    public mutating func int<T: BinaryInteger>(_ value: T) {
        separator()
        if let v = Int64(exactly: value) {
            appendDecimal(v.magnitude, negative: v < 0)
        } else if let v = UInt64(exactly: value) {
            appendDecimal(v, negative: false)
        } else {
            bytes.append(contentsOf: String(value).utf8)
        }
    }

    /// Digits without going through a String (this runs for every field of every register).
    private mutating func appendDecimal(_ magnitude: UInt64, negative: Bool) {
        if negative { bytes.append(UInt8(ascii: "-")) }
        if magnitude < 10 {
            bytes.append(UInt8(truncatingIfNeeded: magnitude) + 48)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var n = magnitude
            var i = 20
            while n > 0 {
                i -= 1
                buffer[i] = UInt8(truncatingIfNeeded: n % 10) + 48
                n /= 10
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[i..<20]))
        }
    }

    /// A floating-point value; non-finite values (not JSON) are written as strings.
    public mutating func double(_ value: Double) {
        guard value.isFinite else { return string(String(value)) }
        separator()
        bytes.append(contentsOf: value.description.utf8)
    }

    /// `true` / `false`.
    public mutating func bool(_ value: Bool) {
        separator()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// `null`.
    public mutating func null() {
        separator()
        bytes.append(contentsOf: "null".utf8)
    }

    /// Bytes that are already one complete JSON value.
    public mutating func raw(_ json: [UInt8]) {
        separator()
        bytes.append(contentsOf: json)
    }

    /// A register value as `RegisterValue`'s Codable form writes it.
    public mutating func value(_ value: RegisterValue) {
        switch value {
        case .unsigned(let v): int(v)
        case .signed(let v): int(v)
        case .float(let v): double(v)
        case .text(let s): string(s)
        case .bytes(let b):
            beginObject()
            key("hex")
            string(b.hexString)
            endObject()
        }
    }

    /// A timestamp in the API's ISO 8601 form.
    public mutating func date(_ date: Date) { string(TimeText.iso8601(date)) }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings (ids, hex, dates) need no escaping: copy their bytes in one go.
        var text = s
        let copied = text.withUTF8 { utf8 -> Bool in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, Self.hex[Int(c >> 4)], Self.hex[Int(c & 0xF)]])
            default: bytes.append(c)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
