import LastsetFormats

/// Where a change request stands (docs/CHANGE-CONTROL.md).
public enum ChangeState: String, JSONFieldValue, Sendable, Hashable, CaseIterable {
    /// Filed, waiting for an approval by someone else.
    case open
    /// Approved (meaning `approval`) by someone other than the requester: it may be applied once.
    case approved
    /// Applied: its replay ran (`outcome` says how it ended). Closed.
    case applied
    /// Refused at its apply: a fresh dry run did not reproduce the approved hash ("stale approval"), nothing was
    /// written. Closed: the change must be requested and approved again.
    case stale

    /// Whether nothing more can happen to it.
    public var isClosed: Bool { self == .applied || self == .stale }
}
