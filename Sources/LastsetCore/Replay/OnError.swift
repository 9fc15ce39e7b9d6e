import LastsetFormats

/// What to do after the first permanent failure of a replay.
public enum OnError: String, JSONFieldValue, Sendable, Hashable, CaseIterable {
    /// No write after the first permanent failure (default).
    case stop
    /// Go on with the remaining registers.
    case `continue`
    /// Stop, then restore (and verify) the target's values as they were before the replay.
    case rollback
}
