import LastsetFormats

/// Outcome for one register of a replay.
public enum RegisterStatus: String, JSONFieldValue, Sendable, Hashable, CaseIterable {
    /// Written and read back equal.
    case verified
    /// Written, but read back different (e.g. the device clamped it).
    case mismatch
    /// The device answered the write with an exception.
    case rejected
    /// The write could not be sent (no connection): not written.
    case failed
    /// The request was sent and no answer came (timeout, connection lost): it may or may not have been
    /// stored. Included in a rollback and in the audit record.
    case inDoubt
    /// The device acknowledged the write, but it was not read back (the read-back failed, or the replay
    /// stopped before this register's verification window was read).
    case unverified
    /// Verified, then read back different by the final pass: a later write changed it (e.g. a drive
    /// that resets dependent parameters).
    case changedLater
    /// Not written (an earlier failure stopped the replay, or shutdown).
    case notAttempted
    /// Dry run: the target already holds the template's value.
    case unchanged
    /// Dry run: the target holds another value and would be written.
    case differs
}
