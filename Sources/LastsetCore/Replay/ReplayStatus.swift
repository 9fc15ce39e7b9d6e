import LastsetFormats

/// Whether a replay did its job.
public enum ReplayStatus: String, JSONFieldValue, Sendable, Hashable {
    /// Every entry written and verified, afterWrite done.
    case succeeded
    /// Something was not written or did not verify (see the registers).
    case failed
    /// Refused before the first write (identity mismatch, invalid template, …).
    case refused
    /// Dry run: plan and diff only.
    case planned
}
