import LastsetFormats

/// What a person's name on a change means (21 CFR Part 11 §11.50: the meaning of a signature), recorded with
/// the name, the time and the reason on every write and every approval (docs/CHANGE-CONTROL.md).
public enum SignatureMeaning: String, JSONFieldValue, Sendable, Hashable, CaseIterable {
    /// The person who asks for the change, or writes it: "I make this change".
    case authorship
    /// "I approve this change": the one meaning that releases a protected write (four eyes).
    case approval
    /// "I reviewed this change" (recorded; releases nothing).
    case review
    /// "I take responsibility for this change" (recorded; releases nothing).
    case responsibility
}
