/// The fate of one register's words, for capture, import and replay alike.
public enum RegisterVerdict: Sendable, Hashable, CustomStringConvertible {
    /// Archived by a capture or an import; written by a replay.
    case archive
    /// Left out (and never written), for this reason.
    case skip(SkipReason)
    /// Makes a capture or import invalid and refuses a replay: the rule the words break.
    case invalid(RegisterProblem.Rule)

    /// e.g. "archived", "skipped (unset)", "invalid: above max 900".
    public var description: String {
        switch self {
        case .archive: return "archived"
        case .skip(let reason): return "skipped (\(reason.rawValue))"
        case .invalid(let rule): return "invalid: \(rule)"
        }
    }
}

/// Decides, from the compiled register alone, whether its words are archived/written, skipped or
/// invalid. Order: the declaration (`clone: false`, then `access: ro`), the length, the "not set"
/// pattern, then the value rules (finite, min, max, enum, UTF-8).
public enum RegisterClassifier {
    /// The verdict for `words` (wire order) of `register`. (Inlinable: a replay classifies every
    /// entry, and inlined it reads the register's fields in place instead of copying the register.)
    @inlinable
    public static func classify(_ words: [UInt16], _ register: CompiledRegister) -> RegisterVerdict {
        if case .skipped(let reason) = register.eligibility { return .skip(reason) }
        let def = register.definition
        guard words.count == def.length else { return .invalid(.length(expected: def.length, actual: words.count)) }
        if register.unset.matches(words) { return .skip(.unset) }
        if let rule = RegisterValidator.valueRules(words, def).first { return .invalid(rule) }
        return .archive
    }
}
