import Foundation

/// The kind of job an audit record is about.
public enum AuditKind: String, Codable, Sendable, Hashable, CaseIterable {
    /// A capture from a reference device.
    case capture
    /// A replay to a target (writes).
    case replay
    /// A replay's dry run (no write).
    case dryRun = "dry-run"
    /// A template file imported from elsewhere.
    case `import`
    /// An older version archived again as the latest (`templateVersion` is the new version).
    case promote
    /// A version removed from the archive (`templateVersion` is the one removed).
    case delete
    /// Audit records past the configured retention exported to a file of `<data>/audit-archive/` and removed
    /// from the database (the daemon's own job: `who` is `lastsetd`, no page or device; `message` names the file).
    case retention
}

/// How the job an audit record is about ended.
public enum AuditResult: String, Codable, Sendable, Hashable, CaseIterable {
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

/// What a rollback did to one register: the snapshot value it wrote back and what was then read.
public struct AuditRollback: Codable, Sendable, Hashable {
    /// The value restored (the register's value before the replay).
    public var restored: RegisterValue
    /// Read back after the restore (nil when the read failed).
    public var readBack: RegisterValue?
    /// verified when the read-back equals the restored value.
    public var status: AuditRegisterStatus

    /// Sets every field.
    public init(restored: RegisterValue, readBack: RegisterValue?, status: AuditRegisterStatus) {
        self.restored = restored
        self.readBack = readBack
        self.status = status
    }
}

/// One register's fate in an audit record.
public struct AuditRegister: Codable, Sendable, Hashable {
    public var registerId: String
    /// The target's value before the replay.
    public var before: RegisterValue?
    /// What the device is known to hold at the end: read back after the rollback when one ran, else the
    /// final pass or the verification read, else the captured / imported value.
    public var after: RegisterValue?
    public var status: AuditRegisterStatus
    /// Replay: the value written (sent; nil when never sent).
    public var written: RegisterValue?
    /// Replay: the value read back when the write was verified.
    public var readBack: RegisterValue?
    /// Replay with rollback: what the rollback restored and read back.
    public var rollback: AuditRollback?
    /// Why (rule broken, error).
    public var message: String?

    /// Sets every field.
    public init(
        registerId: String, before: RegisterValue?, after: RegisterValue?, status: AuditRegisterStatus,
        written: RegisterValue? = nil, readBack: RegisterValue? = nil, rollback: AuditRollback? = nil, message: String? = nil
    ) {
        self.registerId = registerId
        self.before = before
        self.after = after
        self.status = status
        self.written = written
        self.readBack = readBack
        self.rollback = rollback
        self.message = message
    }
}

/// How a replay's rollback ended, in the audit record.
public enum AuditRollbackResult: String, Codable, Sendable, Hashable {
    /// Every touched register was restored and read back equal.
    case restored
    /// Some register could not be restored or did not read back equal.
    case incomplete
}

/// One capture or replay, as recorded in the audit log.
public struct AuditRecord: Codable, Sendable, Hashable {
    public var time: Date
    public var kind: AuditKind
    /// Caller identity: `uid:1000`, `token:ops`, …
    public var who: String
    public var pageId: String
    public var device: String
    public var endpoint: String
    public var unit: Int
    public var identity: [IdentityValue]
    public var templateVersion: Int?
    /// The version's id (`3`, or `<host>-<n>` in a fleet, where the number alone is ambiguous).
    public var templateVersionId: String?
    public var pageHash: String
    public var result: AuditResult
    public var message: String?
    public var registers: [AuditRegister]
    /// The job: an intent (`started`) and the record completing it share it.
    public var job: String?
    /// Replay: how its rollback ended, when one ran.
    public var rollback: AuditRollbackResult?
    /// Replay: write frames sent (retries included).
    public var writeFrames: Int?
    /// Replay: registers a write frame may have changed (some words acknowledged, or a frame sent without an
    /// answer) — what decides whether a failed replay left its page partially written (`ReplayPageEffect`).
    /// Nil in records written before it was recorded.
    public var registersChanged: Int?
    /// Replay: the `beforeWrite` steps (unlock) and how each ended — for an interrupted replay, as its
    /// journal tells it (sent, answered), so the record says when the machine may be left unlocked.
    public var beforeWrite: [StepResult]?
    /// Replay: the `afterWrite` steps (commit) and how each ended.
    public var afterWrite: [StepResult]?

    /// Sets every field.
    public init(
        time: Date, kind: AuditKind, who: String, pageId: String, device: String, endpoint: String, unit: Int,
        identity: [IdentityValue], templateVersion: Int?, pageHash: String, result: AuditResult, message: String?,
        registers: [AuditRegister], job: String? = nil, rollback: AuditRollbackResult? = nil, writeFrames: Int? = nil,
        templateVersionId: String? = nil, registersChanged: Int? = nil
    ) {
        self.registersChanged = registersChanged
        self.templateVersionId = templateVersionId
        self.time = time
        self.kind = kind
        self.who = who
        self.pageId = pageId
        self.device = device
        self.endpoint = endpoint
        self.unit = unit
        self.identity = identity
        self.templateVersion = templateVersion
        self.pageHash = pageHash
        self.result = result
        self.message = message
        self.registers = registers
        self.job = job
        self.rollback = rollback
        self.writeFrames = writeFrames
    }
}
