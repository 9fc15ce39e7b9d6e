/// A register value that breaks a rule of its definition; carries what a report needs.
public struct RegisterProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// The rule a value broke.
    public enum Rule: Hashable, Sendable, CustomStringConvertible {
        /// The number of words read is not the type's length.
        case length(expected: Int, actual: Int)
        /// Below the declared `min` (raw units).
        case belowMin(ExactNumber)
        /// Above the declared `max` (raw units).
        case aboveMax(ExactNumber)
        /// Not one of the declared `enum` values.
        case notInEnum([ExactNumber])
        /// A float that is NaN or infinite.
        case notFinite
        /// String bytes (up to the first NUL) that are not valid UTF-8.
        case invalidUTF8

        /// What the rule says, e.g. "above max 900".
        public var description: String {
            switch self {
            case .length(let expected, let actual): return "expected \(expected) registers, got \(actual)"
            case .belowMin(let m): return "below min \(m)"
            case .aboveMax(let m): return "above max \(m)"
            case .notInEnum(let values): return "not one of [\(values.map(\.description).joined(separator: ", "))]"
            case .notFinite: return "not a finite number"
            case .invalidUTF8: return "not valid UTF-8"
            }
        }
    }

    /// The register's id.
    public var registerId: String
    /// The register's address.
    public var address: Int
    /// The raw bytes as read, in hex (the `valueData` form).
    public var rawHex: String
    /// The decoded value as text (quoted for strings).
    public var value: String
    /// The rule that was broken.
    public var rule: Rule

    /// A problem from its parts.
    public init(registerId: String, address: Int, rawHex: String, value: String, rule: Rule) {
        self.registerId = registerId
        self.address = address
        self.rawHex = rawHex
        self.value = value
        self.rule = rule
    }

    /// e.g. `heating.setpoint @101: 950 (0x03B6) above max 900`.
    public var description: String { "\(registerId) @\(address): \(value) (0x\(rawHex)) \(rule)" }
}

/// Checks a read value against its register definition: length, NaN/infinity, min, max, enum, UTF-8.
public enum RegisterValidator {
    /// Every rule the words break; empty when valid. Unset words are not validated: they are skipped,
    /// never archived nor written, so holding 0xFFFF in a register with `max: 900` is no problem.
    public static func problems(words: [UInt16], definition: RegisterDefinition) -> [RegisterProblem] {
        let raw = words.bigEndianBytes.hexString
        guard words.count == definition.length else {
            let value = RegisterCodec.decode(words, as: definition)
            return [
                RegisterProblem(
                    registerId: definition.registerId, address: definition.address, rawHex: raw,
                    value: value.description, rule: .length(expected: definition.length, actual: words.count))
            ]
        }
        if RegisterCodec.isUnset(words, for: definition) { return [] }
        let value = RegisterCodec.decode(words, as: definition)
        return valueRules(words, definition).map {
            RegisterProblem(
                registerId: definition.registerId, address: definition.address, rawHex: raw,
                value: value.description, rule: $0)
        }
    }

    /// The value rules (UTF-8 for strings; finite, min, max, enum for numbers) `words` of the right
    /// length break, without looking at the "not set" value.
    public static func valueRules(_ words: [UInt16], _ definition: RegisterDefinition) -> [RegisterProblem.Rule] {
        switch definition.type {
        case .string(let n):
            let bytes = RegisterCodec.valueBytes(words, definition).prefix(n).prefix { $0 != 0 }
            return String(validating: bytes, as: UTF8.self) == nil ? [.invalidUTF8] : []
        case .raw:
            return []
        default:
            return ExactNumber(RegisterCodec.decode(words, as: definition)).map { numberRules($0, definition) } ?? []
        }
    }

    /// The range and enumeration rules a number breaks (NaN and infinities break `notFinite` only), compared
    /// exactly: a u64 above 2^53 is checked against the bound as declared, not against nearby Doubles.
    public static func numberRules(_ number: ExactNumber, _ definition: RegisterDefinition) -> [RegisterProblem.Rule] {
        guard number.isFinite else { return [.notFinite] }
        var rules: [RegisterProblem.Rule] = []
        if let min = definition.min, number < min { rules.append(.belowMin(min)) }
        if let max = definition.max, number > max { rules.append(.aboveMax(max)) }
        if let values = definition.enum, !values.contains(number) { rules.append(.notInEnum(values)) }
        return rules
    }
}


