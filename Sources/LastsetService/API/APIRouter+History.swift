import Foundation
import LastsetCore
import LastsetEngine
import LastsetHTTP

extension ApplyAllRequest: StrictKeys {}

/// The template history routes (compare, promote, delete) and the whole-machine apply (docs/API.md).
extension APIRouter {
    /// Routes this file serves; nil when the request is not one of them.
    func historyRoute(_ request: HTTPRequest, route: [String], who: String) async throws -> HTTPResponse? {
        let m = request.method
        switch (m, route.count) {
        case ("GET", 5) where route[0] == "pages" && route[2] == "templates" && route[4] == "diff":
            let page = try await self.page(route[1])
            guard let againstText = request.query["against"], !againstText.isEmpty else {
                throw APIError.badRequest("missing_parameter", "a version diff needs ?against=VERSION")
            }
            let version = try versionNumber(route[3])
            let against = try versionNumber(againstText)
            let a = try await archive { try await self.engine.archive.load(pageId: page.id, version: version) }
            let b = try await archive { try await self.engine.archive.load(pageId: page.id, version: against) }
            return .json(200, TemplateComparison.diff(a, against: b), encoder: APICoding.encoder())
        case ("POST", 5) where route[0] == "pages" && route[2] == "templates" && route[4] == "promote":
            let page = try await self.page(route[1])
            guard let version = try versionNumber(route[3]) else {
                throw APIError.badRequest("bad_version", "promote needs a version, not \"latest\"")
            }
            let reason = try historyReason(request)
            do {
                let stored = try await engine.promote(page: page, version: version, who: who, reason: reason)
                publish(stored, kind: .promote, who: who)
                return .json(201, stored, encoder: APICoding.encoder())
            } catch {
                throw await historyError(error)
            }
        case ("DELETE", 4) where route[0] == "pages" && route[2] == "templates":
            let page = try await self.page(route[1])
            guard let version = try versionNumber(route[3]) else {
                throw APIError.badRequest("bad_version", "delete needs a version, not \"latest\"")
            }
            let force = request.query["force"].map(isTrue) ?? false
            let reason = try historyReason(request)
            do {
                let deletion = try await engine.deleteVersion(
                    page: page, version: version, force: force, who: who, reason: reason)
                publishRecords()
                return .json(200, deletion, encoder: APICoding.encoder())
            } catch {
                throw await historyError(error)
            }
        case ("POST", 3) where route[0] == "devices" && route[2] == "apply":
            let body = try decode(ApplyAllRequest.self, request)
            let wait = request.query["wait"].map(isTrue) ?? false
            let job = try await applyAll(device: route[1], body: body, who: who, wait: wait)
            return HTTPResponse(
                status: wait ? 200 : 202, headers: ["Content-Type": "application/json"], body: APICoding.json(job))
        default:
            return nil
        }
    }

    /// The methods allowed on the history routes' paths (for 405 answers).
    static let historyRoutes: [(method: String, pattern: [String])] = [
        ("GET", ["pages", "*", "templates", "*", "diff"]), ("POST", ["pages", "*", "templates", "*", "promote"]),
        ("DELETE", ["pages", "*", "templates", "*"]), ("POST", ["devices", "*", "apply"]),
    ]

    /// `?reason=`: why a version is deleted or promoted (1…500 printable characters), carried in its audit record
    /// and, in a fleet, in its record on every host.
    private func historyReason(_ request: HTTPRequest) throws -> String? {
        guard let reason = request.query["reason"] else { return nil }
        guard (1...500).contains(reason.count),
            !reason.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw APIError.badRequest("bad_parameter", "reason \"\(reason.prefix(80))\" must be 1...500 printable characters") }
        return reason
    }

    private func historyError(_ error: HistoryError) async -> Error {
        switch error {
        case .archive(let e):
            do {
                // Through the router's one mapping of archive errors.
                _ = try await archive { () async throws -> Int in throw e }
                return e
            } catch {
                return error
            }
        case .alreadyLatest: return APIError.conflict("already_latest", error.description)
        case .inUse: return APIError.conflict("version_in_use", error.description)
        }
    }

    /// Every page of a configured device, in config order, in one job holding the device: each page
    /// is a replay of its latest template with its own identity check, steps and verification, and its own
    /// audit record. Stops at the first page that does not succeed unless `onPageFailure: continue`.
    func applyAll(device deviceId: String, body: ApplyAllRequest, who: String, wait: Bool) async throws -> JobInfo {
        try ensureAccepting()
        guard SafeName.isValid(deviceId) else {
            throw APIError.badRequest(
                "invalid_name", "invalid device id \"\(deviceId)\": only [A-Za-z0-9][A-Za-z0-9._-]* (max 64)")
        }
        guard let snapshot = await registry.snapshot(device: deviceId) else { throw unknownDevice(deviceId) }
        let (device, target) = (snapshot.device, snapshot.target)
        guard !device.pageIds.isEmpty else {
            throw APIError.unprocessable("no_pages", "device \"\(device.id)\" has no pages to apply")
        }
        // Every page from the snapshot's generation (the checker guarantees a device's pages exist).
        let pages = device.pageIds.compactMap { snapshot.page($0) }
        // Every page's latest template, loaded once before the job: what the job writes is what the pins below
        // were checked against (a promote or sync after this point changes nothing this job does).
        var loaded: [(page: CompiledPage, template: Result<Template, ArchiveError>)] = []
        for page in pages {
            do throws(ArchiveError) {
                loaded.append((page, .success(try await engine.archive.load(pageId: page.id))))
            } catch {
                loaded.append((page, .failure(error)))
            }
        }
        for (pageId, confirmed) in (body.expectVersions ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard device.has(page: pageId) else {
                throw APIError.unprocessable(
                    "page_not_on_device", "expectVersions names page \"\(pageId)\", which device \"\(device.id)\" does not have")
            }
            let resolved: String? =
                if case .success(let t)? = loaded.first(where: { $0.page.id == pageId })?.template { t.versionId.id } else { nil }
            if let refusal = VersionPin.refusal(pageId: pageId, confirmed: confirmed, resolved: resolved) {
                throw APIError.conflict("version_changed", refusal)
            }
        }
        let jobPages = loaded
        let options = ReplayOptions(dryRun: body.dryRun ?? false, onError: body.onError ?? .stop)
        let policy = body.onPageFailure ?? .stop
        let engine = self.engine
        let registry = self.registry
        return try await runJob(
            kind: .applyAll, pageId: device.pageIds.joined(separator: ","), target: target, who: who, wait: wait
        ) {
            progress in
            var results: [PageApplyResult] = []
            var stoppedAt: String?
            for (index, (page, loadedTemplate)) in jobPages.enumerated() {
                if stoppedAt != nil || Task.isCancelled {
                    results.append(
                        PageApplyResult(
                            pageId: page.id, status: .notAttempted,
                            error: Task.isCancelled ? "the daemon is stopping" : "stopped at page \(stoppedAt ?? "")"))
                    continue
                }
                progress(JobProgress(phase: .page(page.id), done: index, total: pages.count))
                let template: Template
                do {
                    template = try loadedTemplate.get()
                } catch {
                    results.append(PageApplyResult(pageId: page.id, status: .noTemplate, error: "\(error)"))
                    if policy == .stop { stoppedAt = page.id }
                    continue
                }
                let report = await engine.apply(page: page, template: template, to: target, options: options, who: who)
                let status = ApplyAllReport.status(of: report)
                results.append(
                    PageApplyResult(pageId: page.id, status: status, versionId: template.versionId.id, report: report))
                if let lost = report.registers.first(where: { $0.status == .failed }) {
                    await registry.recordFailure(device.id, error: "\(lost.registerId): \(lost.message ?? "failed")")
                } else if report.requests > 0 {
                    await registry.recordSuccess(device.id)
                }
                if status != (options.dryRun ? .planned : .succeeded), policy == .stop { stoppedAt = page.id }
            }
            progress(JobProgress(phase: .done, done: pages.count, total: pages.count))
            return JobOutcome(
                applyAll: ApplyAllReport(device: device.id, dryRun: options.dryRun, pages: results, stoppedAt: stoppedAt))
        }
    }
}
