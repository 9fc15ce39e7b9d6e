import Foundation
import LastsetCore
import LastsetEngine
import LastsetHTTP

/// Four-eyes change control (docs/CHANGE-CONTROL.md, docs/API.md "Changes"): a change request is a dry run whose
/// hash an approval by another person signs; its apply writes only if a fresh dry run, inside the replay, reproduces
/// that hash. Every step is an audit record; the rules are `ChangeControl`'s.
extension APIRouter {
    /// `POST /v1/changes`: 201 with the request (its dry run waited for); 409 `dry_run_refused` when it did not plan.
    func fileChange(_ call: APICall) async throws -> HTTPResponse {
        let body = try call.decode(ChangeRequestBody.self)
        try ensureAccepting()
        guard !body.reason.allSatisfy(\.isWhitespace) else { throw Self.refusal(.reasonRequired) }
        let (snapshot, page) = try await jobSnapshot(device: body.device, page: body.page)
        let template = try await engine.archive.load(pageId: page.id, version: body.version)
        let job = try await deviceJobs.apply(
            page: page, template: template, to: snapshot.target, options: ReplayOptions(dryRun: true, hashesChange: true),
            warning: nil, who: call.who, wait: true)
        guard let report = job.replay, report.status == .planned, let hash = report.changeHash else {
            throw APIError(
                status: 409, code: .dryRunRefused,
                message: "the dry run did not plan, no change request filed: \(job.replay?.reason ?? job.error ?? "no report")")
        }
        let requested = Approval(who: call.who, time: Date(), meaning: .authorship, reason: body.reason)
        let request = ChangeRequest(
            id: UUID().uuidString, pageId: page.id, device: body.device, versionId: template.versionId.id, hash: hash,
            requested: requested, plan: report)
        try await storing { () async throws(StorageError) in try await changes.add(request) }
        await auditChange(request, kind: .changeRequest, signature: requested, message: "requested, \(hash)")
        return .api(201, request)
    }

    /// `GET /v1/changes`: every request, oldest first.
    func listChanges() async -> HTTPResponse { .api(200, await changes.list()) }

    /// `GET /v1/changes/{id}`: 404 `not_found`.
    func showChange(_ call: APICall) async throws -> HTTPResponse {
        .api(200, try await change(call.parameter("id")))
    }

    /// `POST /v1/changes/{id}/approve`: a signature (meaning and reason) by someone other than the requester.
    func signChange(_ call: APICall) async throws -> HTTPResponse {
        let id = try call.parameter("id")
        let body = try call.decode(ChangeSignatureBody.self)
        let approval = Approval(who: call.who, time: Date(), meaning: body.meaning, reason: body.reason)
        guard let signed = try await storing({ () async throws(StorageError) in try await changes.sign(id, approval) }) else {
            throw Self.unknownChange(id)
        }
        let request = try signed.mapError(Self.refusal).get()
        await auditChange(request, kind: .approval, signature: approval, message: "\(body.meaning.rawValue): now \(request.state)")
        return .api(200, request)
    }

    /// `POST /v1/changes/{id}/apply`: the approved request's replay, pinned to its version and its hash: 200 with the
    /// job; 409 `stale_approval` (nothing written) when the fresh dry run differs.
    func applyChange(_ call: APICall) async throws -> HTTPResponse {
        let id = try call.parameter("id")
        let body = call.request.body.isEmpty ? ChangeApplyBody() : try call.decode(ChangeApplyBody.self)
        guard let claimed = try await storing({ () async throws(StorageError) in try await changes.claim(id) }) else {
            throw Self.unknownChange(id)
        }
        let request = try claimed.mapError(Self.refusal).get()
        let job: JobInfo
        do {
            job = try await runChange(request, reason: body.reason, who: call.who)
        } catch {
            await finishChange(id, state: request.state, job: nil, outcome: "not applied: \(error)")
            throw error
        }
        let report = job.replay
        let state = ChangeControl.state(
            afterApplyHashing: report?.changeHash, status: report?.status ?? .refused, of: request)
        let outcome = "\(report?.status.rawValue ?? "failed")" + ((report?.reason ?? job.error).map { ": \($0)" } ?? "")
        await finishChange(id, state: state, job: job.id, outcome: outcome)
        if state == .stale {
            throw APIError(status: 409, code: .staleApproval, message: report?.reason ?? "stale approval: nothing written")
        }
        return .api(200, body: APICoding.json(job))
    }

    /// The replay of an approved request: its device's snapshot, its version, its hash, its signatures.
    private func runChange(_ request: ChangeRequest, reason: String?, who: String) async throws -> JobInfo {
        try ensureAccepting()
        let (snapshot, page) = try await jobSnapshot(device: request.device, page: request.pageId)
        let template = try await engine.archive.load(pageId: page.id, version: TemplateVersionRef.parse(request.versionId))
        let signature = WriteSignature(
            reason: reason.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 } ?? request.requested.reason,
            approvals: [request.requested] + request.approvals, changeRequest: request.id)
        return try await deviceJobs.apply(
            page: page, template: template, to: snapshot.target, options: ReplayOptions(changeHash: request.hash),
            warning: nil, who: who, wait: true, signature: signature)
    }

    /// A request by id: 404 `not_found`.
    private func change(_ id: String) async throws -> ChangeRequest {
        guard let request = await changes.get(id) else { throw Self.unknownChange(id) }
        return request
    }

    /// 404 `not_found` for a change request this daemon does not hold.
    static func unknownChange(_ id: String) -> APIError {
        .notFound(.notFound, "no change request \"\(id)\" (closed requests past the newest 500 are removed: see the audit log)")
    }

    /// The store's errors as 500 `storage` (nothing was filed, signed or claimed).
    private func storing<T>(_ body: () async throws(StorageError) -> T) async throws(APIError) -> T {
        do {
            return try await body()
        } catch {
            throw APIError(status: 500, code: .storage, message: "change requests: \(error)")
        }
    }

    /// Ends a claimed apply; a commit that fails is logged (the request stays claimed in the database, so the next
    /// start closes it as interrupted: never applied twice).
    private func finishChange(_ id: String, state: ChangeState, job: String?, outcome: String) async {
        do {
            try await changes.finish(id, state: state, job: job, outcome: outcome)
        } catch {
            errorLog("change request \(id): its end (\(state.rawValue)) is not recorded: \(error)")
        }
    }

    /// The API error of a change-control refusal.
    static func refusal(_ r: ChangeRefusal) -> APIError { APIError(status: r.status, code: r.code, message: r.description) }

    /// A change request's step in the audit log: who, when, the meaning and the reason, the request's id and hash.
    private func auditChange(_ request: ChangeRequest, kind: AuditKind, signature: Approval, message: String) async {
        var record = AuditRecord(
            time: signature.time, kind: kind, who: signature.who, pageId: request.pageId, device: request.device,
            endpoint: request.plan.endpoint, unit: request.plan.unit, identity: [], templateVersion: request.plan.templateVersion,
            pageHash: request.plan.pageHash, result: kind == .changeRequest ? .planned : .succeeded, message: message,
            registers: [], templateVersionId: request.versionId)
        WriteSignature(reason: signature.reason, meaning: signature.meaning, changeRequest: request.id).sign(&record)
        do {
            try await engine.audit.append(record)
        } catch {
            errorLog("audit log: the \(kind.rawValue) of change request \(request.id) is not recorded: \(error)")
        }
    }
}
