/// Whether a value may override a register, and the words it writes: the rules a template value obeys (type,
/// range, enum, "not set"), checked when the config loads (`ConfigChecker`) and used again when it compiles
/// (`CompiledConfig`), so a layer never holds words the checker did not accept.
public enum OverrideRules {
    /// The words `value` writes to `register`, or why it cannot be an override: a read-only register, a value the
    /// type cannot hold, the register's "not set" value, or a value that breaks min, max or enum.
    public static func words(_ value: RegisterValue, for register: CompiledRegister) -> Result<[UInt16], OverrideRefusal> {
        let def = register.definition
        guard def.isWritable else { return .failure(.readOnly) }
        let words: [UInt16]
        do throws(CodecError) {
            words = try RegisterCodec.encode(value, as: def)
        } catch {
            return .failure(.type(error.reason))
        }
        if register.unset.matches(words) { return .failure(.unset) }
        if let rule = RegisterValidator.valueRules(words, def).first { return .failure(.rule(rule)) }
        return .success(words)
    }

    /// A CSV cell as a value of `type`: text for `string(n)`, hex bytes (`0x…` optional) for `raw(n)`, a number
    /// otherwise (decimal, `0x` hex, or a real for floats).
    public static func value(csvText text: String, type: RegisterType) -> RegisterValue? {
        switch type {
        case .string: return .text(text)
        case .raw:
            let hex = text.lowercased().hasPrefix("0x") ? String(text.dropFirst(2)) : text
            return [UInt8](hexString: hex).map(RegisterValue.bytes)
        case .f32, .f64: return RegisterMapCSV.parseNumber(text).map(RegisterValue.float)
        default:
            if let i = RegisterMapCSV.parseInteger(text) { return i >= 0 ? .unsigned(UInt64(i)) : .signed(i) }
            if let u = UInt64(text) { return .unsigned(u) }
            // 21.0 for an integer register is 21; 21.5 is refused by the codec with its reason.
            return RegisterMapCSV.parseNumber(text).map(RegisterValue.float)
        }
    }

    /// A tolerance's problem for `register` (nil: fine): only numbers have a band; the amount must be ≥ 0 (percent
    /// at most 100).
    public static func toleranceProblem(_ tolerance: Tolerance, for register: RegisterDefinition) -> String? {
        guard register.type.isNumeric else { return "only a number register has a tolerance (\(register.type) is compared exactly)" }
        switch tolerance {
        case .absolute(let a) where !(a.isFinite && a >= 0): return "absolute must be a finite number ≥ 0"
        case .percent(let p) where !(p.isFinite && p >= 0 && p <= 100): return "percent must be in 0…100"
        default: return nil
        }
    }
}

/// Why a value cannot override a register.
public enum OverrideRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The register is `access: ro`.
    case readOnly
    /// The register's type cannot hold the value (the codec's reason).
    case type(String)
    /// The value is the register's "not set" value.
    case unset
    /// The value breaks a value rule (min, max, enum, finite, UTF-8).
    case rule(RegisterProblem.Rule)

    /// What is wrong, for a config problem.
    public var description: String {
        switch self {
        case .readOnly: return "the register is read-only (access: ro): it is never written, so it has no override"
        case .type(let reason): return "not a value of the register's type: \(reason)"
        case .unset: return "is the register's \"not set\" value: an override must be a value to write"
        case .rule(let rule): return "breaks the register's rule: \(rule)"
        }
    }
}
