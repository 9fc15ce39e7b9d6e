import LastsetFormats
/// A number as a register map declares it (`min`, `max`, `enum`), kept exactly: every integer from the s64
/// minimum to the u64 maximum is itself, not the nearest Double (2^53 + 3 stays 2^53 + 3), and a real is a
/// Double. Values compare exactly across the two (`9007199254740996 > 9007199254740995`, `2.5 < 3`), so a
/// 64-bit register's value is never checked against a bound that rounding moved.
public struct ExactNumber: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// An integral number is always `.integer` (so `900.0` and `900` are one value); `.real` is a finite
    /// Double that is not a whole number within ±2^127, or a non-finite one.
    enum Storage: Hashable, Sendable {
        case integer(Int128)
        case real(Double)
    }

    let storage: Storage

    /// A signed integer.
    public init(_ value: Int64) { storage = .integer(Int128(value)) }
    /// An unsigned integer.
    public init(_ value: UInt64) { storage = .integer(Int128(value)) }
    /// A real; a whole number is kept as the integer it is.
    public init(_ value: Double) {
        if let i = Int128(exactly: value) { storage = .integer(i) } else { storage = .real(value) }
    }

    /// A register value's number (nil for text and bytes).
    public init?(_ value: RegisterValue) {
        switch value {
        case .unsigned(let u): self.init(u)
        case .signed(let s): self.init(s)
        case .float(let d): self.init(d)
        case .text, .bytes: return nil
        }
    }

    /// A config's number (nil for anything that is not one).
    public init?(_ value: JSONValue) {
        switch value {
        case .int(let i): self.init(i)
        case .uint(let u): self.init(u)
        case .double(let d): self.init(d)
        default: return nil
        }
    }

    /// The nearest Double (for display and arithmetic, never for a rule).
    public var double: Double {
        switch storage {
        case .integer(let i): return Double(i)
        case .real(let d): return d
        }
    }

    /// Whether it is a finite number.
    public var isFinite: Bool {
        if case .real(let d) = storage { return d.isFinite }
        return true
    }

    /// The integer, when it is one that fits in 64 bits (signed or unsigned).
    var integer64: JSONValue? {
        guard case .integer(let i) = storage else { return nil }
        if let s = Int64(exactly: i) { return .int(s) }
        if let u = UInt64(exactly: i) { return .uint(u) }
        return nil
    }

    /// As a config would hold it.
    public var jsonValue: JSONValue { integer64 ?? .double(double) }

    /// Integers in full (`9007199254740995`), reals as Swift writes them (`0.25`).
    public var description: String {
        switch storage {
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        }
    }

    /// Exact order. A real here is never a whole number, so an integer `i` is below a real `d` exactly when
    /// `i <= floor(d)`; a non-finite real is beyond every integer (NaN is not ordered: every `<` is false).
    public static func < (a: ExactNumber, b: ExactNumber) -> Bool {
        switch (a.storage, b.storage) {
        case (.integer(let x), .integer(let y)): return x < y
        case (.real(let x), .real(let y)): return x < y
        case (.integer(let x), .real(let y)): return Self.floor(y).map { x <= $0 } ?? (y > 0)
        case (.real(let x), .integer(let y)): return Self.floor(x).map { $0 < y } ?? (x < 0 && !x.isNaN)
        }
    }

    /// `floor(d)` as an integer, nil when beyond ±2^127 or not a number.
    private static func floor(_ d: Double) -> Int128? {
        guard d.isFinite, abs(d) < 0x1p126 else { return nil }
        return Int128(d.rounded(.down))
    }
}

extension ExactNumber: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    public init(integerLiteral value: Int64) { self.init(value) }
    public init(floatLiteral value: Double) { self.init(value) }
}

extension ExactNumber: Codable {
    /// A JSON number: integers in full, reals as Doubles.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let i = try? c.decode(Int64.self) {
            self.init(i)
        } else if let u = try? c.decode(UInt64.self) {
            self.init(u)
        } else {
            self.init(try c.decode(Double.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch jsonValue {
        case .int(let i): try c.encode(i)
        case .uint(let u): try c.encode(u)
        default: try c.encode(double)
        }
    }
}

extension JSONWriter {
    /// A bound as the page hash has always spelled it: an integer a Double holds exactly as that Double
    /// (`900.0`, so existing page hashes stand), any other integer in full (`9007199254740995`: digits
    /// alone, which no Double's spelling is), a real as a Double.
    public mutating func number(_ n: ExactNumber) {
        if case .integer(let i) = n.storage, Double(exactly: i) == nil {
            int(i)
        } else {
            double(n.double)
        }
    }
}
