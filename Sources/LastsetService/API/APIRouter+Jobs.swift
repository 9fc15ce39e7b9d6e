import LastsetCore
import LastsetEngine
import LastsetHTTP

/// The routes that start device jobs — capture, apply, diff, a whole-machine apply — and the job table
/// (docs/API.md, "Jobs"). Each checks the request and resolves what the job runs on; `DeviceJobs` runs it.
extension APIRouter {
    /// `POST /v1/pages/{page}/capture`: 202 with the running job, 200 with the finished one under `?wait`.
    func capture(_ call: APICall) async throws -> HTTPResponse {
        let pageId = try call.parameter("page")
        let body = try call.decode(CaptureRequest.self)
        try ensureAccepting()
        let (snapshot, page) = try await jobSnapshot(device: body.device, page: pageId)
        let who = call.who
        let job = try await deviceJobs.capture(page: page, on: snapshot, who: who, wait: call.flag("wait")) { versionId in
            self.publish(pageId: page.id, versionId: versionId, kind: .capture, who: who)
        }
        return .api(call.flag("wait") ? 200 : 202, body: APICoding.json(job))
    }

    /// `POST /v1/pages/{page}/apply`: 202 with the running job, 200 with the finished one under `?wait`.
    func apply(_ call: APICall) async throws -> HTTPResponse {
        let pageId = try call.parameter("page")
        let body = try call.decode(ApplyRequest.self)
        let wait = call.flag("wait")
        return .api(wait ? 200 : 202, body: APICoding.json(try await apply(page: pageId, body: body, who: call.who, wait: wait)))
    }

    /// `GET /v1/pages/{page}/diff?device=ID`: a dry run, waited for; its report.
    func diff(_ call: APICall) async throws -> HTTPResponse {
        let pageId = try call.parameter("page")
        guard let device = call.query("device") else {
            throw APIError.badRequest(.missingParameter, "diff needs ?device=ID")
        }
        let version = try call.request.query["version"].flatMap(versionNumber)
        let body = ApplyRequest(device: device, version: version, dryRun: true)
        let job = try await apply(page: pageId, body: body, who: call.who, wait: true)
        guard let report = job.replay else {
            throw APIError(status: 500, code: .jobFailed, message: job.error ?? "the dry run produced no report")
        }
        return .api(200, body: APICoding.json(report))
    }

    /// `POST /v1/devices/{id}/apply`: every page of a configured device, in config order, in one job holding the
    /// device, each page a replay of its latest template (`versions: "lastVerified"`: of the version last verified on
    /// the device, as a restore). The templates are loaded before the job, and every
    /// version the operator confirmed (`expectVersions`) is checked against them: 409 `version_changed`, nothing
    /// written, when any differs.
    func applyAll(_ call: APICall) async throws -> HTTPResponse {
        let deviceId = try call.parameter("id")
        let body = try call.decode(ApplyAllRequest.self)
        try ensureAccepting()
        guard SafeName.isValid(deviceId) else {
            throw APIError.badRequest(
                .invalidName, "invalid device id \"\(deviceId)\": only [A-Za-z0-9][A-Za-z0-9._-]* (max 64)")
        }
        guard let snapshot = await registry.snapshot(device: deviceId) else { throw Self.unknownDevice(deviceId) }
        let device = snapshot.device
        guard !device.pageIds.isEmpty else {
            throw APIError.unprocessable(.noPages, "device \"\(device.id)\" has no pages to apply")
        }
        // Every page from the snapshot's generation (the checker guarantees a device's pages exist): the latest, or
        // for a restore the version last verified on the device (the replacement policy's choice).
        let compiled = device.pageIds.compactMap { snapshot.page($0) }
        let pages =
            body.versions == .lastVerified
            ? await engine.lastVerifiedTemplates(of: compiled, device: device.id)
            : await engine.latestTemplates(of: compiled)
        for (pageId, confirmed) in (body.expectVersions ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard device.has(page: pageId) else {
                throw APIError.unprocessable(
                    .pageNotOnDevice, "expectVersions names page \"\(pageId)\", which device \"\(device.id)\" does not have")
            }
            let resolved: String? =
                if case .success(let t)?? = pages.first(where: { $0.page.id == pageId })?.template { t.versionId.id } else { nil }
            if let refusal = VersionPin.refusal(pageId: pageId, confirmed: confirmed, resolved: resolved) {
                throw APIError.conflict(.versionChanged, refusal)
            }
        }
        let options = ReplayOptions(dryRun: body.dryRun ?? false, onError: body.onError ?? .stop)
        if !options.dryRun { try await checkChangeControl(pages.map(\.page), reason: body.reason) }
        let wait = call.flag("wait")
        let job = try await deviceJobs.applyAll(
            pages, on: snapshot, options: options, policy: body.onPageFailure ?? .stop, who: call.who, wait: wait,
            signature: options.dryRun ? nil : WriteSignature(reason: body.reason))
        return .api(wait ? 200 : 202, body: APICoding.json(job))
    }

    /// A write (not a dry run) of `pages` outside a change request: 409 `approval_required` when one is protected, 422
    /// `missing_reason` when a reason is required and none given (docs/CHANGE-CONTROL.md). Nothing is sent either way.
    private func checkChangeControl(_ pages: [CompiledPage], reason: String?) async throws {
        let control = await registry.config.source.changeControl
        for page in pages {
            if let why = ChangeControl.protection(of: page, control) { throw Self.refusal(.approvalRequired(why)) }
        }
        if let refusal = ChangeControl.reasonRefusal(reason, control) { throw Self.refusal(refusal) }
    }

    /// `GET /v1/jobs/{id}`: 404 `not_found` for a job the table does not hold.
    func showJob(_ call: APICall) async throws -> HTTPResponse {
        let id = try call.parameter("id")
        guard let job = await jobs.get(id) else { throw APIError.notFound(.notFound, "no job \"\(id)\"") }
        return .api(200, body: APICoding.json(job))
    }

    /// Starts a replay of the page to the body's target: the template loaded here, once (a missing or corrupt
    /// one is an immediate error, not a failed job), and checked against the version the operator confirmed.
    private func apply(page id: String, body: ApplyRequest, who: String, wait: Bool) async throws -> JobInfo {
        try ensureAccepting()
        let (page, target) = try await applyTarget(page: id, body: body)
        if body.dryRun != true { try await checkChangeControl([page], reason: body.reason) }
        // What the hub has first, within a short bound; otherwise the replay says it used what is local.
        let fleetWarning = await fleet?.refreshBeforeReplay()
        let template = try await engine.archive.load(pageId: page.id, version: body.version)
        if let refusal = VersionPin.refusal(pageId: page.id, confirmed: body.expectVersion, resolved: template.versionId.id) {
            throw APIError.conflict(.versionChanged, refusal)
        }
        let options = ReplayOptions(dryRun: body.dryRun ?? false, onError: body.onError ?? .stop)
        return try await deviceJobs.apply(
            page: page, template: template, to: target, options: options, warning: fleetWarning, who: who, wait: wait,
            signature: options.dryRun ? nil : WriteSignature(reason: body.reason))
    }

    /// The page and target of an apply: a configured device (its snapshot's page), or an ad-hoc endpoint and unit
    /// (the page as the same config generation has it; a configured machine reached by another spelling keeps its
    /// own page conventions).
    private func applyTarget(page id: String, body: ApplyRequest) async throws -> (CompiledPage, DeviceTarget) {
        _ = try await page(id)
        switch (body.device, body.endpoint) {
        case (let d?, nil):
            guard body.unit == nil else {
                throw APIError.badRequest(.badRequest, "\"unit\" goes with \"endpoint\", not with \"device\"")
            }
            let (snapshot, page) = try await jobSnapshot(device: d, page: id)
            return (page, snapshot.target)
        case (nil, let e?):
            let (endpoint, unit) = try adHocTarget(endpoint: e, unit: body.unit ?? 1)
            let (target, configured, config) = await registry.adHoc(endpoint: endpoint, unit: unit)
            guard let page = config.page(id, on: configured.flatMap { $0.has(page: id) ? $0.id : nil }) else {
                throw Self.unknownPage(id)
            }
            return (page, target)
        case (nil, nil):
            throw APIError.badRequest(.missingTarget, "give \"device\" (a configured id) or \"endpoint\" (+ \"unit\")")
        case (_?, _?):
            throw APIError.badRequest(.badRequest, "give either \"device\" or \"endpoint\", not both")
        }
    }
}
