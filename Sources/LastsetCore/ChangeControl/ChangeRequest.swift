import Foundation
import LastsetFormats

/// A change request: a dry run of one page on one configured device, filed with a reason, whose hash
/// (`ChangeHash`) an approval signs and a fresh dry run must reproduce before anything is written.
public struct ChangeRequest: Sendable, Hashable {
    /// Its id (a UUID).
    public var id: String
    public var pageId: String
    /// The configured device.
    public var device: String
    /// The template version planned (`3`, `line-7-3`).
    public var versionId: String
    /// `sha256:…` over the target's identity, its as-found values, the template version and the plan.
    public var hash: String
    /// The requester's signature (meaning `authorship`).
    public var requested: Approval
    public var state: ChangeState
    /// Every signature after the request, in order.
    public var approvals: [Approval]
    /// The dry run the request is (the diff in view).
    public var plan: ReplayReport
    /// The apply's job (once applied or refused stale).
    public var applyJob: String?
    /// How the apply ended: the replay's status and reason.
    public var outcome: String?

    /// Sets every field.
    public init(
        id: String, pageId: String, device: String, versionId: String, hash: String, requested: Approval,
        state: ChangeState = .open, approvals: [Approval] = [], plan: ReplayReport, applyJob: String? = nil,
        outcome: String? = nil
    ) {
        self.id = id
        self.pageId = pageId
        self.device = device
        self.versionId = versionId
        self.hash = hash
        self.requested = requested
        self.state = state
        self.approvals = approvals
        self.plan = plan
        self.applyJob = applyJob
        self.outcome = outcome
    }
}

extension ChangeRequest: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = ChangeRequest(
        id: "", pageId: "", device: "", versionId: "", hash: "", requested: .placeholder, plan: .placeholder)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("applyJob", &r.applyJob)
        try f.field("approvals", &r.approvals)
        try f.field("device", &r.device)
        try f.field("hash", &r.hash)
        try f.field("id", &r.id)
        try f.field("outcome", &r.outcome)
        try f.field("pageId", &r.pageId)
        try f.field("plan", &r.plan)
        try f.field("requested", &r.requested)
        try f.field("state", &r.state)
        try f.field("versionId", &r.versionId)
    }
}
