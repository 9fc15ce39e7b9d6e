import LastsetCore

/// The validation rules a value must pass before it is archived or written.
enum RegisterCheck {
    /// The rule the words break for this register, or nil when they are valid.
    static func problem(_ words: [UInt16], for def: RegisterDefinition) -> String? {
        RegisterValidator.problems(words: words, definition: def).first.map { $0.rule.description }
    }
}
