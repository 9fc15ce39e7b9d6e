import LastsetFormats

/// Which of a page's step lists a step belongs to.
public enum StepPhase: String, JSONFieldValue, Sendable, Hashable, CaseIterable {
    /// Before the first register write (an unlock, a "settings mode" command).
    case beforeWrite
    /// After every register verified (a commit, a lock).
    case afterWrite
}
