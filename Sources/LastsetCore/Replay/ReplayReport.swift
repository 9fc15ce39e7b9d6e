import LastsetFormats

/// Everything a replay did, register by register.
public struct ReplayReport: Sendable, Hashable {
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
    /// The plan's `ChangeHash` (a change request's dry run, and its apply; nil otherwise).
    public var changeHash: String?
    /// The job id of the audit records this replay made (its intent and outcome): what `lastset certificate JOB` and
    /// `lastset audit --job` take. Nil when it made none: a dry run, or a replay refused before its intent.
    public var auditJob: String?

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

extension ReplayReport: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = ReplayReport(
        pageId: "", templateVersion: 0, pageHash: "", target: "", endpoint: "", unit: 0, options: ReplayOptions(),
        status: .failed,
        warnings: [], identity: [], beforeWrite: [], afterWrite: [], registers: [], plan: [], fellBackToFC06: false, requests: 0,
        writeFrames: 0)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("afterWrite", &r.afterWrite)
        try f.field("auditJob", &r.auditJob)
        try f.field("beforeWrite", &r.beforeWrite)
        try f.field("changeHash", &r.changeHash)
        try f.field("changedLater", &r.changedLater)
        try f.field("endpoint", &r.endpoint)
        try f.field("fellBackToFC06", &r.fellBackToFC06)
        try f.field("firstInDoubt", &r.firstInDoubt)
        try f.field("identity", &r.identity)
        try f.field("lastConfirmed", &r.lastConfirmed)
        try f.field("options", &r.options)
        try f.field("pageHash", &r.pageHash)
        try f.field("pageId", &r.pageId)
        try f.field("plan", &r.plan)
        try f.field("reason", &r.reason)
        try f.lines("registers", &r.registers)
        try f.field("requests", &r.requests)
        try f.field("rollback", &r.rollback)
        try f.field("status", &r.status)
        try f.field("stoppedAt", &r.stoppedAt)
        try f.field("target", &r.target)
        try f.field("templateVersion", &r.templateVersion)
        try f.field("templateVersionId", &r.templateVersionId)
        try f.field("unit", &r.unit)
        try f.field("warnings", &r.warnings)
        try f.field("writeFrames", &r.writeFrames)
    }
}
