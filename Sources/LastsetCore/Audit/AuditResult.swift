import Foundation
import LastsetFormats

/// How the job an audit record is about ended.
public enum AuditResult: String, JSONFieldValue, Sendable, Hashable, CaseIterable {
    /// Intent: recorded (fsynced) before the first write frame or before archiving; a later record of the
    /// same `job` completes it. Readers fold a completed intent away.
    case started
    /// Capture / import: the template was archived.
    case archived
    /// Capture: a register was invalid, nothing archived.
    case invalid
    /// Capture: identical to the latest version, nothing archived (`templateVersion` is that version).
    case unchanged
    /// Delete: the version was removed.
    case deleted
    /// Replay: every register written and verified, afterWrite done.
    case succeeded
    /// The job failed (see the registers and the message).
    case failed
    /// Refused before the first write frame (nothing written).
    case refused
    /// Dry run: planned only.
    case planned
    /// The daemon stopped (crash, kill) while the replay was writing: the device may be partially
    /// written, and shows as unverified until a replay or a diff clears it.
    case interrupted
}

extension AuditResult {
    /// The result a replay's or dry run's outcome record carries for its report's status.
    public init(_ status: ReplayStatus) {
        switch status {
        case .succeeded: self = .succeeded
        case .failed: self = .failed
        case .refused: self = .refused
        case .planned: self = .planned
        }
    }
}
