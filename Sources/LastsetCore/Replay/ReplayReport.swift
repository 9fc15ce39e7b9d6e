

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
