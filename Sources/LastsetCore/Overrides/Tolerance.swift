import LastsetFormats

/// How far a device's value may lie from its effective value and still conform (analog settings a device
/// rounds or trims): an absolute band in the register's raw units, or a percentage of the effective value.
public enum Tolerance: Sendable, Hashable, CustomStringConvertible {
    /// |live − expected| ≤ amount (raw units, before scale).
    case absolute(Double)
    /// |live − expected| ≤ amount % of |expected|.
    case percent(Double)

    /// The band's half-width around `expected`.
    public func width(around expected: Double) -> Double {
        switch self {
        case .absolute(let a): return a
        case .percent(let p): return abs(expected) * p / 100
        }
    }

    /// Whether `live` lies inside the band around `expected` (its edges included; never for a non-finite value).
    public func contains(_ live: Double, around expected: Double) -> Bool {
        guard live.isFinite, expected.isFinite else { return false }
        // A relative epsilon: 20.1 read back as the f32 nearest 20.1 lies on the edge of a 0.1 band around 20.0.
        let width = self.width(around: expected)
        return abs(live - expected) <= width + max(abs(live), abs(expected)) * 1e-6
    }

    /// `±0.1` or `±2%`.
    public var description: String {
        switch self {
        case .absolute(let a): return "±\(ValueText.number(a))"
        case .percent(let p): return "±\(ValueText.number(p))%"
        }
    }

    /// The amount, whichever the kind.
    public var amount: Double {
        switch self {
        case .absolute(let a), .percent(let a): return a
        }
    }
}

extension Tolerance: JSONFieldValue {
    private enum Key: String, CodingKey { case absolute, percent }

    /// `{"absolute": 0.1}` or `{"percent": 2}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        switch (try c.decodeIfPresent(Double.self, forKey: .absolute), try c.decodeIfPresent(Double.self, forKey: .percent)) {
        case (let a?, nil): self = .absolute(a)
        case (nil, let p?): self = .percent(p)
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .absolute, in: c, debugDescription: "a tolerance is {absolute: N} or {percent: N}")
        }
    }

    /// The same form.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .absolute(let a): try c.encode(a, forKey: .absolute)
        case .percent(let p): try c.encode(p, forKey: .percent)
        }
    }

    /// The same form, by the fast writer.
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        switch self {
        case .absolute(let a):
            w.key("absolute")
            w.double(a)
        case .percent(let p):
            w.key("percent")
            w.double(p)
        }
        w.endObject()
    }
}

/// Numbers as people read them: `2` not `2.0`.
enum ValueText {
    static func number(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }
}
