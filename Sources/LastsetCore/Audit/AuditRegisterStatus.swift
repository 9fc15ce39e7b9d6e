import Foundation

/// What one register of an audit record went through.
public enum AuditRegisterStatus: String, Codable, Sendable, Hashable, CaseIterable {
    /// Capture: archived in the template.
    case captured
    /// Capture: its value broke a rule (see `message`), nothing archived.
    case invalid
    /// Import: part of the imported template.
    case imported
    /// Replay: written and read back equal (and unchanged in the final pass).
    case verified
    /// Replay: written, read back different.
    case mismatch
    /// Replay: the device refused the write with an exception.
    case rejected
    /// Replay: the write could not be sent.
    case failed
    /// Replay: the write was sent and no answer came; it may have been stored.
    case inDoubt
    /// Replay: acknowledged, never read back.
    case unverified
    /// Replay: verified, then changed by a later write (final pass).
    case changedLater
    /// Replay: not written.
    case notAttempted
    /// Dry run: the target already holds the template's value.
    case unchanged
    /// Dry run: the target holds another value.
    case differs

    /// The audit form of a replay register status.
    public init(_ status: RegisterStatus) {
        switch status {
        case .verified: self = .verified
        case .mismatch: self = .mismatch
        case .rejected: self = .rejected
        case .failed: self = .failed
        case .inDoubt: self = .inDoubt
        case .unverified: self = .unverified
        case .changedLater: self = .changedLater
        case .notAttempted: self = .notAttempted
        case .unchanged: self = .unchanged
        case .differs: self = .differs
        }
    }
}
