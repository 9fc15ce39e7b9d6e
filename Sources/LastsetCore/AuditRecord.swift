import Foundation

/// One register's before/after in an audit record.
public struct AuditRegister: Codable, Sendable, Hashable {
    public var registerId: String
    public var before: RegisterValue?
    public var after: RegisterValue?
    public var status: String

    public init(registerId: String, before: RegisterValue?, after: RegisterValue?, status: String) {
        self.registerId = registerId
        self.before = before
        self.after = after
        self.status = status
    }
}

/// One capture or replay, as recorded in the audit log.
public struct AuditRecord: Codable, Sendable, Hashable {
    public var time: Date
    /// "capture", "replay" or "dry-run".
    public var kind: String
    /// Caller identity: `uid:1000`, `token:ops`, …
    public var who: String
    public var pageId: String
    public var device: String
    public var endpoint: String
    public var unit: Int
    public var identity: [IdentityValue]
    public var templateVersion: Int?
    public var pageHash: String
    /// "archived", "invalid", "succeeded", "failed", "refused", "planned".
    public var result: String
    public var message: String?
    public var registers: [AuditRegister]

    public init(
        time: Date, kind: String, who: String, pageId: String, device: String, endpoint: String, unit: Int,
        identity: [IdentityValue], templateVersion: Int?, pageHash: String, result: String, message: String?,
        registers: [AuditRegister]
    ) {
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
    }
}
