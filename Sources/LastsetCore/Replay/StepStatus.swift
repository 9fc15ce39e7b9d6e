import LastsetFormats

/// How a `beforeWrite` / `afterWrite` step ended.
public enum StepStatus: String, JSONFieldValue, Sendable, Hashable {
    /// Written (the device acknowledged it).
    case ok
    /// The device refused it, or it could not be sent.
    case failed
    /// Sent, no answer came: it may have been executed.
    case inDoubt
    /// Not sent.
    case notAttempted
}
