/// The rules of four-eyes change control (docs/CHANGE-CONTROL.md), pure and table-tested
/// (`ChangeControlTests`): what is protected, who may sign a change request, when it may be applied, when a
/// write needs a reason. The router asks; nothing here talks to a device.
public enum ChangeControl {
    /// Why an apply of `page` needs an approved change request (nil: it does not): the page is protected, or it
    /// holds protected registers (named).
    public static func protection(of page: CompiledPage, _ config: ChangeControlConfig?) -> String? {
        guard let config else { return nil }
        if config.protectedPages.contains(page.id) { return "page \"\(page.id)\" is protected" }
        let registers = page.registers.map(\.registerId).filter { config.protectedRegisters.contains($0) }
        guard !registers.isEmpty else { return nil }
        return "page \"\(page.id)\" holds protected register\(registers.count == 1 ? "" : "s") "
            + registers.joined(separator: ", ")
    }

    /// Why a write may not go ahead for want of a reason (nil: it may): an empty reason never counts.
    public static func reasonRefusal(_ reason: String?, _ config: ChangeControlConfig?) -> ChangeRefusal? {
        guard config?.reasonRequired == true, Self.isBlank(reason) else { return nil }
        return .reasonRequired
    }

    /// Why `who` may not sign `request` with `meaning` (nil: they may): a closed request, the requester
    /// themself (four eyes: never their own), a second signature of one person with one meaning, no reason.
    public static func signatureRefusal(_ request: ChangeRequest, by who: String, meaning: SignatureMeaning, reason: String)
        -> ChangeRefusal?
    {
        if request.state.isClosed { return .closed(request.state) }
        if meaning == .authorship { return .meaningNotASignature }
        if who == request.requested.who { return .ownRequest }
        if request.approvals.contains(where: { $0.who == who && $0.meaning == meaning }) { return .alreadySigned }
        if Self.isBlank(reason) { return .reasonRequired }
        return nil
    }

    /// The state after `approval`: an `approval` by someone else releases the request; other meanings are recorded.
    public static func state(of request: ChangeRequest, after approval: Approval) -> ChangeState {
        approval.meaning == .approval && approval.who != request.requested.who ? .approved : request.state
    }

    /// Why `request` may not be applied now (nil: it may be, once, and only if a fresh dry run reproduces its hash).
    public static func applyRefusal(_ request: ChangeRequest) -> ChangeRefusal? {
        if request.state.isClosed { return .closed(request.state) }
        let released = request.approvals.contains { $0.meaning == .approval && $0.who != request.requested.who }
        guard request.state == .approved, released else { return .notApproved }
        return nil
    }

    /// The state after an apply whose fresh dry run hashed to `hash` (nil: it never got that far — refused before
    /// the snapshot, e.g. the identity — and may be tried again) and ended `status`.
    public static func state(afterApplyHashing hash: String?, status: ReplayStatus, of request: ChangeRequest) -> ChangeState {
        guard let hash else { return request.state }
        if hash != request.hash { return .stale }
        return status == .refused ? request.state : .applied
    }

    private static func isBlank(_ text: String?) -> Bool { (text ?? "").allSatisfy(\.isWhitespace) }
}

/// Why change control refuses a request; each has its API error code (docs/API.md).
public enum ChangeRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// An apply (not a dry run) of a protected page without a change request.
    case approvalRequired(String)
    /// A write without a reason where `changeControl.reasonRequired` is set, or a signature without one.
    case reasonRequired
    /// The requester signing their own request.
    case ownRequest
    /// The same person signing twice with one meaning.
    case alreadySigned
    /// `authorship` is the requester's meaning, not a signature on someone else's request.
    case meaningNotASignature
    /// The request was applied or refused stale.
    case closed(ChangeState)
    /// No approval by someone other than the requester yet.
    case notApproved

    /// The wire code.
    public var code: APIErrorCode {
        switch self {
        case .approvalRequired: return .approvalRequired
        case .reasonRequired: return .missingReason
        case .ownRequest: return .ownRequest
        case .alreadySigned: return .alreadySigned
        case .meaningNotASignature: return .badMeaning
        case .closed: return .changeClosed
        case .notApproved: return .notApproved
        }
    }

    /// The HTTP status.
    public var status: Int {
        switch self {
        case .reasonRequired: return 422
        case .meaningNotASignature: return 400
        case .ownRequest: return 403
        case .approvalRequired, .alreadySigned, .closed, .notApproved: return 409
        }
    }

    /// What the caller reads.
    public var description: String {
        switch self {
        case .approvalRequired(let why):
            return "\(why): an apply needs an approved change request (POST /v1/changes, then approve by another person, then POST /v1/changes/{id}/apply); nothing written"
        case .reasonRequired: return "a reason is required (changeControl.reasonRequired, and every signature)"
        case .ownRequest: return "the requester cannot approve their own change request (four eyes)"
        case .alreadySigned: return "this person has already signed the request with this meaning"
        case .meaningNotASignature: return "meaning \"authorship\" is the requester's; sign with approval, review or responsibility"
        case .closed(let state): return "the change request is closed (\(state.rawValue)): request the change again"
        case .notApproved: return "the change request has no approval by another person yet"
        }
    }
}
