import Foundation
import LastsetFormats

/// One capture or replay, as recorded in the audit log.
public struct AuditRecord: Sendable, Hashable {
    public var time: Date
    public var kind: AuditKind
    /// Caller identity: `uid:1000`, `token:ops`, …
    public var who: String
    public var pageId: String
    public var device: String
    public var endpoint: String
    public var unit: Int
    public var identity: [RecordedValue]
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
    /// Why (a write's reason, a change request's, a signature's; docs/CHANGE-CONTROL.md).
    public var reason: String?
    /// What `who`'s name on it means: `authorship` for a write or a request, else the signature's meaning.
    public var meaning: SignatureMeaning?
    /// A change request's apply: every signature on the request, the requester's first.
    public var approvals: [Approval]?
    /// The change request a write, request or signature belongs to.
    public var changeRequest: String?

    /// Sets every field.
    public init(
        time: Date, kind: AuditKind, who: String, pageId: String, device: String, endpoint: String, unit: Int,
        identity: [RecordedValue], templateVersion: Int?, pageHash: String, result: AuditResult, message: String?,
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

extension AuditRecord: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = AuditRecord(
        time: .distantPast, kind: .capture, who: "", pageId: "", device: "", endpoint: "", unit: 0, identity: [],
        templateVersion: nil, pageHash: "", result: .started, message: nil, registers: [])

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("afterWrite", &r.afterWrite)
        try f.field("approvals", &r.approvals)
        try f.field("beforeWrite", &r.beforeWrite)
        try f.field("changeRequest", &r.changeRequest)
        try f.field("device", &r.device)
        try f.field("endpoint", &r.endpoint)
        try f.field("identity", &r.identity)
        try f.field("job", &r.job)
        try f.field("kind", &r.kind)
        try f.field("meaning", &r.meaning)
        try f.field("message", &r.message)
        try f.field("pageHash", &r.pageHash)
        try f.field("pageId", &r.pageId)
        try f.field("reason", &r.reason)
        try f.field("registers", &r.registers)
        try f.field("registersChanged", &r.registersChanged)
        try f.field("result", &r.result)
        try f.field("rollback", &r.rollback)
        try f.field("templateVersion", &r.templateVersion)
        try f.field("templateVersionId", &r.templateVersionId)
        try f.field("time", &r.time)
        try f.field("unit", &r.unit)
        try f.field("who", &r.who)
        try f.field("writeFrames", &r.writeFrames)
    }
}
