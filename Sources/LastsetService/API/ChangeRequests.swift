import Foundation
import LastsetCore

/// The change requests of this daemon (docs/CHANGE-CONTROL.md), newest last. Kept in memory: a restart drops
/// every open request and approval (an approval never outlives the daemon that checked it; the audit log keeps
/// each request, signature and apply). An apply claims its request first, so one request is applied once.
actor ChangeRequests {
    private var requests: [ChangeRequest] = []
    /// Requests whose apply is running.
    private var claimed: Set<String> = []
    /// Closed requests kept for listing.
    static let keptClosed = 500

    /// Files a request.
    func add(_ request: ChangeRequest) {
        requests.append(request)
        let closed = requests.filter(\.state.isClosed)
        if closed.count > Self.keptClosed {
            let drop = Set(closed.prefix(closed.count - Self.keptClosed).map(\.id))
            requests.removeAll { drop.contains($0.id) }
        }
    }

    /// Every request, oldest first.
    func list() -> [ChangeRequest] { requests }

    /// One request.
    func get(_ id: String) -> ChangeRequest? { requests.first { $0.id == id } }

    /// Signs a request when `ChangeControl` allows it: the request after, or the refusal.
    func sign(_ id: String, _ approval: Approval) -> Result<ChangeRequest, ChangeRefusal>? {
        guard let i = requests.firstIndex(where: { $0.id == id }) else { return nil }
        if claimed.contains(id) { return .failure(.closed(requests[i].state)) }
        if let refusal = ChangeControl.signatureRefusal(
            requests[i], by: approval.who, meaning: approval.meaning, reason: approval.reason)
        {
            return .failure(refusal)
        }
        requests[i].state = ChangeControl.state(of: requests[i], after: approval)
        requests[i].approvals.append(approval)
        return .success(requests[i])
    }

    /// Claims a request for its apply when `ChangeControl` allows it (nil: no such request); `finish` releases it.
    func claim(_ id: String) -> Result<ChangeRequest, ChangeRefusal>? {
        guard let i = requests.firstIndex(where: { $0.id == id }) else { return nil }
        if claimed.contains(id) { return .failure(.closed(requests[i].state)) }
        if let refusal = ChangeControl.applyRefusal(requests[i]) { return .failure(refusal) }
        claimed.insert(id)
        return .success(requests[i])
    }

    /// Ends a claimed apply: the request's new state and what happened.
    func finish(_ id: String, state: ChangeState, job: String?, outcome: String) -> ChangeRequest? {
        claimed.remove(id)
        guard let i = requests.firstIndex(where: { $0.id == id }) else { return nil }
        requests[i].state = state
        requests[i].applyJob = job ?? requests[i].applyJob
        requests[i].outcome = outcome
        return requests[i]
    }
}
