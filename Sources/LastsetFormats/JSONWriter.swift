import Foundation

/// Writes JSON text straight into a byte buffer. Foundation's `JSONEncoder` costs tens of
/// milliseconds for a 10,000-register template or audit record; capture and replay write one on every
/// job, so the formats on their hot path (templates, audit records) are written with this instead.
/// Output is valid JSON that `JSONDecoder` reads back into the same Codable types.
public struct JSONWriter: ~Copyable {
    /// The text so far, in a buffer of its own (noncopyable: one owner, no copy-on-write checks), grown by
    /// doubling; a field checks the room once for its punctuation, not once per byte.
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    /// Whether the next value in the current object or array needs a comma before it.
    private var needsComma = false
    /// The same for each enclosing object or array, innermost last (touched only at `{ [ ] }`: a field
    /// costs no array access).
    private var enclosing: [Bool] = []

    public init(capacity: Int = 1024) {
        self.capacity = max(64, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The text so far.
    public var bytes: [UInt8] { [UInt8](UnsafeBufferPointer(start: base, count: count)) }

    /// Makes room for `n` more bytes.
    @inline(__always)
    private mutating func reserve(_ n: Int) {
        if count + n > capacity { grow(count + n) }
    }

    @inline(never)
    private mutating func grow(_ needed: Int) {
        let larger = max(needed, capacity * 2)
        let new = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        new.update(from: base, count: count)
        base.deallocate()
        base = new
        capacity = larger
    }

    /// One byte (room already made).
    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    /// One byte.
    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        reserve(1)
        put(byte)
    }

    /// Bytes copied in one go.
    @inline(__always)
    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    private var breakBeforeNext = false

    @inline(__always)
    private mutating func separator() {
        reserve(2)
        if needsComma { put(UInt8(ascii: ",")) }
        needsComma = true
        if breakBeforeNext {
            put(0x0A)
            breakBeforeNext = false
        }
    }

    /// `{` (as a value in the current array, or after `key`).
    public mutating func beginObject() {
        separator()
        append(UInt8(ascii: "{"))
        enclosing.append(needsComma)
        needsComma = false
    }

    /// `}`.
    public mutating func endObject() {
        needsComma = enclosing.popLast() ?? true
        append(UInt8(ascii: "}"))
    }

    /// `[`.
    public mutating func beginArray() {
        separator()
        append(UInt8(ascii: "["))
        enclosing.append(needsComma)
        needsComma = false
    }

    /// `]`.
    public mutating func endArray() {
        needsComma = enclosing.popLast() ?? true
        if breakBeforeNext {
            append(0x0A)
            breakBeforeNext = false
        }
        append(UInt8(ascii: "]"))
    }

    /// The text followed by a line feed (a JSON line, a body), handed over without copying the buffer.
    public mutating func line() -> [UInt8] {
        append(0x0A)
        return bytes
    }

    /// Puts the next value (after its comma) on a new line: one item per line in long arrays.
    public mutating func lineBreak() { breakBeforeNext = true }

    /// `"name":` — the next value belongs to it. Names are the formats' own field names (literals: copied
    /// as they are, never escaped — this runs for every field of every register).
    public mutating func key(_ name: StaticString) {
        separator()
        reserve(name.utf8CodeUnitCount + 3)
        put(UInt8(ascii: "\""))
        (base + count).update(from: name.utf8Start, count: name.utf8CodeUnitCount)
        count += name.utf8CodeUnitCount
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: ":"))
        needsComma = false
    }

    /// `"name":` for a name known only at run time (escaped as any string).
    public mutating func key(dynamic name: String) {
        separator()
        appendString(name)
        append(UInt8(ascii: ":"))
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

    /// An `Int` value (the common case, without the generic conversions).
    public mutating func int(_ value: Int) {
        separator()
        appendDecimal(UInt64(value.magnitude), negative: value < 0)
    }

    /// A 64-bit value (a register's, without the generic conversions).
    public mutating func int(_ value: Int64) {
        separator()
        appendDecimal(value.magnitude, negative: value < 0)
    }

    /// An unsigned 64-bit value (a register's).
    public mutating func int(_ value: UInt64) {
        separator()
        appendDecimal(value, negative: false)
    }

    /// An integer value.
    public mutating func int<T: BinaryInteger>(_ value: T) {
        separator()
        if let v = Int64(exactly: value) {
            appendDecimal(v.magnitude, negative: v < 0)
        } else if let v = UInt64(exactly: value) {
            appendDecimal(v, negative: false)
        } else {
            append(contentsOf: String(value).utf8)
        }
    }

    /// Digits without going through a String (this runs for every field of every register).
    private mutating func appendDecimal(_ magnitude: UInt64, negative: Bool) {
        reserve(21)
        if negative { put(UInt8(ascii: "-")) }
        if magnitude < 10 {
            put(UInt8(truncatingIfNeeded: magnitude) + 48)
            return
        }
        var digits = 0
        var n = magnitude
        while n > 0 {
            digits += 1
            n /= 10
        }
        n = magnitude
        var i = count + digits
        while n > 0 {
            i -= 1
            base[i] = UInt8(truncatingIfNeeded: n % 10) + 48
            n /= 10
        }
        count += digits
    }

    /// A floating-point value; non-finite values (not JSON) are written as strings.
    public mutating func double(_ value: Double) {
        guard value.isFinite else { return string(String(value)) }
        separator()
        append(contentsOf: value.description.utf8)
    }

    /// `true` / `false`.
    public mutating func bool(_ value: Bool) {
        separator()
        append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// `null`.
    public mutating func null() {
        separator()
        append(contentsOf: "null".utf8)
    }

    /// Bytes that are already one complete JSON value.
    public mutating func raw(_ json: [UInt8]) {
        separator()
        json.withUnsafeBufferPointer { append($0) }
    }

    /// A timestamp in the API's ISO 8601 form. The last one's text is kept: every entry of a capture has the same
    /// read time, formatted once.
    public mutating func date(_ date: Date) {
        if date != lastDate {
            lastDate = date
            lastDateText = TimeText.iso8601(date)
        }
        string(lastDateText)
    }

    private var lastDate: Date?
    private var lastDateText = ""

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendString(_ s: String) {
        // Most strings (ids, hex, dates) need no escaping: copy their bytes in one go.
        var text = s
        let copied = text.withUTF8 { utf8 -> Bool in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return false }
            reserve(utf8.count + 2)
            put(UInt8(ascii: "\""))
            append(utf8)
            put(UInt8(ascii: "\""))
            return true
        }
        if copied { return }
        append(UInt8(ascii: "\""))
        for c in s.utf8 {
            reserve(6)
            switch c {
            case UInt8(ascii: "\""):
                put(0x5C)
                put(0x22)
            case UInt8(ascii: "\\"):
                put(0x5C)
                put(0x5C)
            case 0x0A:
                put(0x5C)
                put(UInt8(ascii: "n"))
            case 0x0D:
                put(0x5C)
                put(UInt8(ascii: "r"))
            case 0x09:
                put(0x5C)
                put(UInt8(ascii: "t"))
            case 0..<0x20:
                for b in [0x5C, UInt8(ascii: "u"), 0x30, 0x30, Self.hex[Int(c >> 4)], Self.hex[Int(c & 0xF)]] { put(b) }
            default: put(c)
            }
        }
        append(UInt8(ascii: "\""))
    }

    /// The bytes of a string or array (rare paths: numbers beyond 64 bits, doubles, literals).
    private mutating func append<S: Sequence<UInt8>>(contentsOf bytes: S) {
        for b in bytes { append(b) }
    }
}
