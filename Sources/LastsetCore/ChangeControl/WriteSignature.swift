/// What a write records of the people behind it (docs/CHANGE-CONTROL.md): the writer's reason and meaning
/// (`authorship`), and for a change request its id and every signature — the requester's first. Set on the
/// replay's intent and outcome audit records (`AuditRecord.reason`, `meaning`, `approvals`, `changeRequest`);
/// the record's `who` and `time` are the name and the time.
public struct WriteSignature: Sendable, Hashable {
    public var reason: String?
    public var meaning: SignatureMeaning
    /// The change request's signatures (nil: a write without one).
    public var approvals: [Approval]?
    public var changeRequest: String?

    /// Sets every field.
    public init(
        reason: String?, meaning: SignatureMeaning = .authorship, approvals: [Approval]? = nil, changeRequest: String? = nil
    ) {
        self.reason = reason
        self.meaning = meaning
        self.approvals = approvals
        self.changeRequest = changeRequest
    }

    /// The record signed.
    public func sign(_ record: inout AuditRecord) {
        record.reason = reason
        record.meaning = meaning
        record.approvals = approvals
        record.changeRequest = changeRequest
    }
}
