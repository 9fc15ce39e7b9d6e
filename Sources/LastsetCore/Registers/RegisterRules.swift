import LastsetFormats
/// The semantic rules of one register definition, shared by the config checker and the CSV import.
enum RegisterRules {
    /// One broken rule: the field (`address`, `min`, …), the bad value and the message.
    struct Problem {
        var key: String
        var value: JSONValue
        var message: String
    }

    /// Address bounds, min ≤ max, enum values within min/max, and an `unset` and a `factoryDefault` that fit the type.
    static func problems(of r: RegisterDefinition) -> [Problem] {
        var out = addressProblems(address: r.address, type: r.type)
        if let min = r.min, let max = r.max, min > max {
            out.append(Problem(key: "min", value: min.jsonValue, message: "min is greater than max \(max)"))
        }
        if let values = r.enum {
            for (k, v) in values.enumerated() {
                if let min = r.min, v < min {
                    out.append(
                        Problem(key: "enum[\(k)]", value: v.jsonValue, message: "enum value is below min \(min)"))
                }
                if let max = r.max, v > max {
                    out.append(
                        Problem(key: "enum[\(k)]", value: v.jsonValue, message: "enum value is above max \(max)"))
                }
            }
        }
        if let factory = r.factoryDefault {
            do throws(CodecError) {
                _ = try RegisterCodec.encode(factory, as: r)
            } catch {
                out.append(
                    Problem(
                        key: "factoryDefault", value: jsonValue(factory),
                        message: "factoryDefault does not fit \(r.type): \(error.reason)"))
            }
        }
        if case .bytes(let bytes)? = r.unset, r.type.isNumeric || { if case .string = r.type { true } else { false } }() {
            let expected: Int
            if case .string(let n) = r.type { expected = n } else { expected = r.type.byteCount }
            if bytes.count != expected {
                out.append(
                    Problem(
                        key: "unset", value: jsonValue(.bytes(bytes)),
                        message: "unset {hex} must be \(expected) bytes (the valueData of a \(r.type)), got \(bytes.count)"))
            }
        } else if let unset = r.unset {
            do throws(CodecError) {
                _ = try RegisterCodec.encode(unset, as: r)
            } catch {
                out.append(
                    Problem(key: "unset", value: jsonValue(unset), message: "unset does not fit \(r.type): \(error.reason)"))
            }
        }
        return out
    }

    /// A non-negative address whose last register is at most 65535.
    static func addressProblems(address: Int, type: RegisterType) -> [Problem] {
        if address < 0 {
            return [Problem(key: "address", value: .int(Int64(address)), message: "address must not be negative")]
        }
        if address + type.registerCount > 65536 {
            return [
                Problem(
                    key: "address", value: .int(Int64(address)),
                    message: "\(type) at this address ends at \(address + type.registerCount - 1), beyond the last register 65535"
                )
            ]
        }
        return []
    }

    /// The value in the case its type decodes to: numbers become `.float` for f32/f64, and whole
    /// `.float`s become `.unsigned`/`.signed` for integer types, so `unset: -1` equals what decode gives.
    static func normalized(_ value: RegisterValue, for type: RegisterType) -> RegisterValue {
        switch (type, value) {
        case (.f32, _), (.f64, _):
            return value.number.map(RegisterValue.float) ?? value
        case (_, .float(let d)) where type.isInteger && d == d.rounded() && abs(d) < 9.2e18:
            return d >= 0 ? .unsigned(UInt64(d)) : .signed(Int64(d))
        default:
            return value
        }
    }

    /// A register value as the JSON a config would hold.
    static func jsonValue(_ v: RegisterValue) -> JSONValue {
        switch v {
        case .unsigned(let u): return u <= UInt64(Int64.max) ? .int(Int64(u)) : .uint(u)
        case .signed(let s): return .int(s)
        case .float(let d): return .double(d)
        case .text(let t): return .string(t)
        case .bytes(let b): return .object(["hex": .string(b.hexString)])
        }
    }
}
