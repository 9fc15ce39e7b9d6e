/// What to do after the first permanent failure of a replay.
public enum OnError: String, Codable, Sendable, Hashable, CaseIterable {
    /// No write after the first permanent failure (default).
    case stop
    /// Go on with the remaining registers.
    case `continue`
    /// Stop, then restore (and verify) the target's values as they were before the replay.
    case rollback
}

/// How a replay should run.
public struct ReplayOptions: Codable, Sendable, Hashable {
    /// Plan and diff only: zero write frames.
    public var dryRun: Bool
    public var onError: OnError

    public init(dryRun: Bool = false, onError: OnError = .stop) {
        self.dryRun = dryRun
        self.onError = onError
    }
}

/// Outcome for one register of a replay.
public enum RegisterStatus: String, Codable, Sendable, Hashable {
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

/// One register's line in a replay report.
public struct RegisterResult: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    public var length: Int
    public var status: RegisterStatus
    /// The template's value.
    public var expected: RegisterValue
    public var expectedData: String
    /// Read back after the write (or the target's current value in a dry run).
    public var actual: RegisterValue?
    public var actualData: String?
    /// The target's value before the replay (nil when it could not be read).
    public var before: RegisterValue?
    /// True when the value before was the register's "not set" default.
    public var beforeUnset: Bool?
    /// True when `expected` is the "not set" default (a rollback line: the value restored).
    public var expectedUnset: Bool?
    /// True when `actual` is the "not set" default (set on rollback lines).
    public var actualUnset: Bool?
    public var exceptionCode: Int?
    public var message: String?

    public init(
        registerId: String, address: Int, length: Int, status: RegisterStatus, expected: RegisterValue, expectedData: String,
        actual: RegisterValue? = nil, actualData: String? = nil, before: RegisterValue? = nil, beforeUnset: Bool? = nil,
        expectedUnset: Bool? = nil, actualUnset: Bool? = nil, exceptionCode: Int? = nil, message: String? = nil
    ) {
        self.registerId = registerId
        self.address = address
        self.length = length
        self.status = status
        self.expected = expected
        self.expectedData = expectedData
        self.actual = actual
        self.actualData = actualData
        self.before = before
        self.beforeUnset = beforeUnset
        self.expectedUnset = expectedUnset
        self.actualUnset = actualUnset
        self.exceptionCode = exceptionCode
        self.message = message
    }
}

/// How a `beforeWrite` / `afterWrite` step ended.
public enum StepStatus: String, Codable, Sendable, Hashable {
    /// Written (the device acknowledged it).
    case ok
    /// The device refused it, or it could not be sent.
    case failed
    /// Sent, no answer came: it may have been executed.
    case inDoubt
    /// Not sent.
    case notAttempted
}

/// A `beforeWrite` / `afterWrite` step's outcome.
public struct StepResult: Codable, Sendable, Hashable {
    public var address: Int
    public var value: Int
    /// How the step ended.
    public var status: StepStatus
    public var message: String?
    /// The register read back right after the write (nil when not written or unreadable).
    public var readBack: Int?

    /// Sets every field.
    public init(address: Int, value: Int, status: StepStatus, message: String? = nil, readBack: Int? = nil) {
        self.address = address
        self.value = value
        self.status = status
        self.message = message
        self.readBack = readBack
    }
}

/// A write request of the plan, as shown to users.
public struct PlannedRequest: Codable, Sendable, Hashable {
    public var function: WriteRequest.Function
    public var address: Int
    public var count: Int
    public var registerIds: [String]

    public init(function: WriteRequest.Function, address: Int, count: Int, registerIds: [String]) {
        self.function = function
        self.address = address
        self.count = count
        self.registerIds = registerIds
    }
}

/// Whether a replay did its job.
public enum ReplayStatus: String, Codable, Sendable, Hashable {
    /// Every entry written and verified, afterWrite done.
    case succeeded
    /// Something was not written or did not verify (see the registers).
    case failed
    /// Refused before the first write (identity mismatch, invalid template, …).
    case refused
    /// Dry run: plan and diff only.
    case planned
}

/// The restore step of `onError: rollback` (also run after a shutdown stopped a rollback replay).
public struct RollbackResult: Codable, Sendable, Hashable {
    /// True when every touched register was restored and verified.
    public var restored: Bool
    /// Per register a frame may have changed (acknowledged or in doubt): expected = the snapshot value restored,
    /// actual = what was read back afterwards.
    public var registers: [RegisterResult]

    /// Sets every field.
    public init(restored: Bool, registers: [RegisterResult]) {
        self.restored = restored
        self.registers = registers
    }
}

/// One identity register compared before a replay.
public struct IdentityCheck: Codable, Sendable, Hashable {
    public var registerId: String
    public var expected: RegisterValue?
    public var actual: RegisterValue?
    public var matches: Bool
    public var message: String?

    public init(
        registerId: String, expected: RegisterValue? = nil, actual: RegisterValue? = nil, matches: Bool, message: String? = nil
    ) {
        self.registerId = registerId
        self.expected = expected
        self.actual = actual
        self.matches = matches
        self.message = message
    }
}

/// Everything a replay did, register by register.
public struct ReplayReport: Codable, Sendable, Hashable {
    public var pageId: String
    public var templateVersion: Int
    /// The template version's id (`3`, or `<host>-<n>` in a fleet, where the number alone is ambiguous).
    public var templateVersionId: String?
    public var pageHash: String
    public var target: String
    public var endpoint: String
    public var unit: Int
    public var options: ReplayOptions
    public var status: ReplayStatus
    /// Why it failed or was refused.
    public var reason: String?
    /// Where a stopped replay stopped ("after heating.mode", "beforeWrite[0]", …).
    public var stoppedAt: String?
    /// Non-fatal remarks (e.g. the page definition changed since capture).
    public var warnings: [String]
    public var identity: [IdentityCheck]
    public var beforeWrite: [StepResult]
    public var afterWrite: [StepResult]
    public var registers: [RegisterResult]
    public var plan: [PlannedRequest]
    /// True when the device refused FC16 and the replay went on with FC06.
    public var fellBackToFC06: Bool
    public var rollback: RollbackResult?
    /// Frames sent, reads and writes, retries included.
    public var requests: Int
    /// Write frames sent, retries included (0 for a dry run).
    public var writeFrames: Int
    /// The last register (page order) whose write the device acknowledged.
    public var lastConfirmed: String?
    /// The first register whose write was sent without an answer.
    public var firstInDoubt: String?
    /// Registers verified, then found changed by the final verification pass.
    public var changedLater: [String] = []

    /// Count of registers with a status.
    public func count(_ status: RegisterStatus) -> Int { registers.filter { $0.status == status }.count }

    public init(
        pageId: String, templateVersion: Int, pageHash: String, target: String, endpoint: String, unit: Int,
        options: ReplayOptions, status: ReplayStatus, reason: String? = nil, stoppedAt: String? = nil, warnings: [String],
        identity: [IdentityCheck], beforeWrite: [StepResult], afterWrite: [StepResult], registers: [RegisterResult],
        plan: [PlannedRequest], fellBackToFC06: Bool, rollback: RollbackResult? = nil, requests: Int, writeFrames: Int,
        lastConfirmed: String? = nil, firstInDoubt: String? = nil, changedLater: [String] = []
    ) {
        self.pageId = pageId
        self.templateVersion = templateVersion
        self.templateVersionId = String(templateVersion)
        self.pageHash = pageHash
        self.target = target
        self.endpoint = endpoint
        self.unit = unit
        self.options = options
        self.status = status
        self.reason = reason
        self.stoppedAt = stoppedAt
        self.warnings = warnings
        self.identity = identity
        self.beforeWrite = beforeWrite
        self.afterWrite = afterWrite
        self.registers = registers
        self.plan = plan
        self.fellBackToFC06 = fellBackToFC06
        self.rollback = rollback
        self.requests = requests
        self.writeFrames = writeFrames
        self.lastConfirmed = lastConfirmed
        self.firstInDoubt = firstInDoubt
        self.changedLater = changedLater
    }
}
