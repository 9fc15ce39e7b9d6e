import Foundation
import LastsetCore
import LastsetEngine
import LastsetFleet
import LastsetHTTP
import Synchronization
import LastsetFormats

/// Maps `/v1/…` requests onto the engine, the device registry and the job table (docs/API.md).
final class APIRouter: Sendable {
    let registry: DeviceRegistry
    let jobs: JobTable
    let engine: Engine
    /// The fleet this host is part of (nil without a `fleet` section).
    let fleet: Fleet?
    /// Where fleet warnings go (a commit that failed after a capture).
    let fleetLog: @Sendable (String) -> Void
    /// Where errors an operator must hear of go (an audit record that could not be written).
    let errorLog: @Sendable (String) -> Void
    let info: @Sendable () async -> HealthInfo
    /// Re-reads the config file (`POST /v1/reload`); the daemon passes its `ConfigReloader`.
    let reload: @Sendable () async -> ConfigReloader.Verdict
    private let accepting = Mutex(true)
    private let currentAuth: Mutex<HTTPAuth>

    init(
        registry: DeviceRegistry, jobs: JobTable, engine: Engine, auth: HTTPAuth, fleet: Fleet? = nil,
        fleetLog: @escaping @Sendable (String) -> Void = { _ in },
        errorLog: @escaping @Sendable (String) -> Void = { _ in },
        reload: @escaping @Sendable () async -> ConfigReloader.Verdict = {
            .refused(configFile: "", problems: ["this daemon cannot reload"])
        },
        info: @escaping @Sendable () async -> HealthInfo
    ) {
        self.registry = registry
        self.jobs = jobs
        self.engine = engine
        self.fleet = fleet
        self.fleetLog = fleetLog
        self.errorLog = errorLog
        self.currentAuth = Mutex(auth)
        self.reload = reload
        self.info = info
    }

    /// The access rules in force.
    var auth: HTTPAuth { currentAuth.withLock { $0 } }

    /// Swaps the access rules (tokens, roles) on reload; open sessions whose token is gone end on their next request.
    func replaceAuth(_ auth: HTTPAuth) { currentAuth.withLock { $0 = auth } }

    /// The body limit of a template import (`POST /v1/pages/{page}/templates`): a template file of a large page
    /// or a legacy iOS archive (whose reader refuses more than 8 MiB anyway: `PropertyListReader`) is far beyond
    /// the 64 KiB every other request is held to.
    static let importBodyBytes = 8 * 1024 * 1024

    /// The larger body limit for uploads, by method and path (`HTTPServerConfiguration.uploadLimit`).
    @Sendable static func uploadLimit(method: String, path: String) -> Int? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard method == "POST", parts.count == 4, parts[0] == "v1", parts[1] == "pages", parts[3] == "templates" else {
            return nil
        }
        return importBodyBytes
    }

    /// Refuses new captures and replays from now on (shutdown).
    func stopAccepting() { accepting.withLock { $0 = false } }

    private static let encoder = APICoding.encoder()

    private func json(_ status: Int, _ value: some Encodable) -> HTTPResponse {
        .json(status, value, encoder: Self.encoder)
    }

    /// Job bodies carry one result per register: written with the fast JSON writer.
    private func json(_ status: Int, body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// Handles one request; never throws (every failure becomes a JSON error).
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let auth = self.auth
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if parts.first != "v1", let asset = ConsoleFiles.response(for: request) {
            if case .tcp = request.peer, let refusal = auth.hostRefusal(request) { return refusal }
            return asset
        }
        if parts == ["v1", "session"] { return session(request, auth: auth) }
        let principal: HTTPAuth.Principal
        switch auth.authorize(request) {
        case .allowed(let p): principal = p
        case .denied(let response): return response
        }
        if let refusal = roleRefusal(request, route: Array(parts.dropFirst()), principal: principal) { return refusal }
        do {
            return try await route(request, who: principal.name)
        } catch let error as APIError {
            return error.response
        } catch {
            return .error(500, code: "internal", message: "\(error)")
        }
    }

    /// 403 `forbidden_role` when the principal's role is below what the route needs (APIAccess).
    private func roleRefusal(_ request: HTTPRequest, route: [String], principal: HTTPAuth.Principal) -> HTTPResponse? {
        var dryRun = false
        // Only a body the strict parser reads as a dry run counts as one (a repeated key is no dry run).
        if request.method == "POST", route.last == "apply",
            case .object(let fields)? = try? StrictJSONParser.parse(request.body, syntax: .json), fields["dryRun"] == .bool(true)
        {
            dryRun = true
        }
        guard let needed = APIAccess.requiredRole(method: request.method, route: route, dryRun: dryRun), principal.role < needed
        else { return nil }
        return .error(
            403, code: "forbidden_role",
            message:
                "\(principal.name) is a \(principal.role.rawValue); \(request.method) \(request.path) needs the \(needed.rawValue) role"
        )
    }

    /// `/v1/session`: GET tells who the caller is (200 `signedIn: false` when nobody), POST signs in with a token
    /// and sets the session cookie, DELETE signs out (ends the session on the server).
    private func session(_ request: HTTPRequest, auth: HTTPAuth) -> HTTPResponse {
        switch request.method {
        case "GET":
            switch auth.authorize(request) {
            case .allowed(let p):
                let session = p.sessionId.flatMap { auth.sessions.lookup($0) }
                return json(
                    200,
                    SessionInfo(
                        signedIn: true, principal: p.name, role: p.role, csrfToken: session?.csrfToken,
                        expiresAt: session?.expiresAt))
            case .denied(let response) where response.status == 401:
                return json(200, SessionInfo(signedIn: false))
            case .denied(let response):
                return response
            }
        case "POST":
            let body: SignInRequest
            do {
                body = try decode(SignInRequest.self, request)
            } catch let error as APIError {
                return error.response
            } catch {
                return .error(400, code: "bad_json", message: "\(error)")
            }
            switch auth.signIn(request, secret: body.token) {
            case .failure(let refusal):
                return refusal.response
            case .success(let (session, cookie)):
                var response = json(
                    201,
                    SessionInfo(
                        signedIn: true, principal: "token:\(session.tokenName)", role: session.role, csrfToken: session.csrfToken,
                        expiresAt: session.expiresAt))
                response.headers["Set-Cookie"] = cookie
                response.headers["Cache-Control"] = "no-store"
                return response
            }
        case "DELETE":
            switch auth.authorize(request) {
            case .denied(let response):
                return response
            case .allowed(let p):
                guard let id = p.sessionId else {
                    return .error(400, code: "no_session", message: "\(p.name) is not signed in with a session; nothing to end")
                }
                auth.sessions.end(id)
                var response = json(200, SessionInfo(signedIn: false))
                response.headers["Set-Cookie"] = auth.sessionCookie("", maxAge: 0)
                return response
            }
        default:
            var response = APIError(
                status: 405, code: "method_not_allowed",
                message: "\(request.method) is not allowed on \(request.path) (allowed: GET, POST, DELETE)"
            ).response
            response.headers.add(name: "Allow", value: "GET, POST, DELETE")
            return response
        }
    }

    private func route(_ request: HTTPRequest, who: String) async throws -> HTTPResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.first == "v1" else { throw APIError.notFound("no such path \"\(request.path)\"; the API lives under /v1/") }
        let m = request.method
        let route = Array(parts.dropFirst())
        func match(_ method: String, _ pattern: String...) -> [String]? {
            guard method == m, pattern.count == route.count else { return nil }
            var captures: [String] = []
            for (p, actual) in zip(pattern, route) {
                if p == "*" { captures.append(actual) } else if p != actual { return nil }
            }
            return captures
        }
        if match("GET", "health") != nil { return json(200, await health()) }
        if match("POST", "sync") != nil {
            guard let fleet else {
                throw APIError(
                    status: 409, code: "no_fleet", message: "this host is in no fleet: the config has no \"fleet\" section")
            }
            return json(200, await fleet.sync())
        }
        if match("POST", "reload") != nil {
            switch await reload() {
            case .reloaded(let result): return json(200, result)
            case .refused(let file, let problems):
                let list = problems.joined(separator: "\n")
                throw APIError.unprocessable(
                    "config_invalid",
                    "config reload refused, keeping the running config: \(problems.count) problem\(problems.count == 1 ? "" : "s") in \(file)\n\(list)"
                )
            }
        }
        if match("POST", "backup") != nil { return try await backup(request, who: who) }
        if match("GET", "metrics") != nil {
            let body = Array(MetricsText.render(await registry.statuses()).utf8)
            return HTTPResponse(status: 200, headers: ["Content-Type": MetricsText.contentType], body: body)
        }
        if match("GET", "identify") != nil { return json(200, try await identify(query: request.query)) }
        if match("GET", "devices") != nil {
            return json(200, await withDeviceState(registry.statuses()))
        }
        if let c = match("GET", "devices", "*") {
            let id = c[0]
            guard let s = await withDeviceState(registry.statuses()).first(where: { $0.id == id }) else {
                throw unknownDevice(id)
            }
            return json(200, s)
        }
        if let response = try await historyRoute(request, route: route, who: who) { return response }
        if match("GET", "conformance") != nil {
            if let p = request.query["page"], !p.isEmpty { _ = try await page(p) }
            return json(200, await conformance(page: request.query["page"].flatMap { $0.isEmpty ? nil : $0 }))
        }
        if let c = match("GET", "pages", "*", "rollout") {
            return json(200, await rollout(page: try await page(c[0])))
        }
        if match("GET", "pages") != nil {
            return json(200, await pageSummaries())
        }
        if let c = match("GET", "pages", "*") {
            return json(200, try await page(c[0]).definition)
        }
        if let c = match("GET", "pages", "*", "templates") {
            let page = c[0]
            let definition = try await self.page(page)
            return json(200, try await archive { try await self.engine.listings(for: definition) })
        }
        if let c = match("GET", "pages", "*", "templates", "*") {
            let (page, v) = (c[0], c[1])
            let definition = try await self.page(page)
            let version = try versionNumber(v)
            let template = try await archive { try await self.engine.archive.load(pageId: page, version: version) }
            let applicability = TemplateApplicability(TemplateAdmission.admit(template, to: definition))
            return json(200, ShownTemplate(template: template, applicableHere: applicability))
        }
        if let c = match("GET", "pages", "*", "templates", "*", "file") {
            let (page, v) = (c[0], c[1])
            _ = try await self.page(page)
            let version = try versionNumber(v)
            switch request.query["format"] {
            case nil, "template"?: break
            case "ios-archive"?:
                // The legacy app's form: a binary NSKeyedArchiver plist of SARegister (no identity, no checksum).
                let definition = try await self.page(page)
                let template = try await archive { try await self.engine.archive.load(pageId: page, version: version) }
                return HTTPResponse(
                    status: 200, headers: ["Content-Type": "application/octet-stream"],
                    body: IOSArchive.archive(for: template, page: definition))
            case let other?:
                throw APIError.badRequest("bad_parameter", "format \"\(other)\" is not template or ios-archive")
            }
            let data = try await archive { try await self.engine.archive.exportData(pageId: page, version: version) }
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: [UInt8](data))
        }
        if let c = match("POST", "pages", "*", "templates") {
            let page = try await self.page(c[0])
            switch request.query["format"] {
            case "ios-archive"?,
                nil where IOSArchive.recognises(request.body):
                let template = try await importIOSArchive(request, page: page, who: who)
                publish(template, kind: .import, who: who)
                return json(201, template)
            case nil, "template"?: break
            case let other?:
                throw APIError.badRequest("bad_parameter", "format \"\(other)\" is not template or ios-archive")
            }
            let template = try await archive { try await self.engine.importTemplate(Data(request.body), into: page, who: who) }
            publish(template, kind: .import, who: who)
            return json(201, template)
        }
        if let c = match("POST", "pages", "*", "capture") {
            let page = c[0]
            let body = try decode(CaptureRequest.self, request)
            let wait = request.query["wait"].map(isTrue) ?? false
            return json(wait ? 200 : 202, body: APICoding.json(try await capture(page: page, body: body, who: who, wait: wait)))
        }
        if let c = match("POST", "pages", "*", "apply") {
            let page = c[0]
            let body = try decode(ApplyRequest.self, request)
            let wait = request.query["wait"].map(isTrue) ?? false
            return json(wait ? 200 : 202, body: APICoding.json(try await apply(page: page, body: body, who: who, wait: wait)))
        }
        if let c = match("GET", "pages", "*", "diff") {
            let page = c[0]
            guard let device = request.query["device"], !device.isEmpty else {
                throw APIError.badRequest("missing_parameter", "diff needs ?device=ID")
            }
            let version = try request.query["version"].flatMap(versionNumber)
            let body = ApplyRequest(device: device, version: version, dryRun: true)
            let job = try await apply(page: page, body: body, who: who, wait: true)
            guard let report = job.replay else {
                throw APIError(status: 500, code: "job_failed", message: job.error ?? "the dry run produced no report")
            }
            return json(200, body: APICoding.json(report))
        }
        if match("GET", "jobs") != nil {
            return json(200, body: APICoding.json(await jobs.list()))
        }
        if let c = match("GET", "jobs", "*") {
            let id = c[0]
            guard let job = await jobs.get(id) else { throw APIError.notFound("no job \"\(id)\"") }
            return json(200, body: APICoding.json(job))
        }
        if match("GET", "audit") != nil {
            let limit = Int(request.query["limit"] ?? "100") ?? -1
            guard (1...10_000).contains(limit) else {
                throw APIError.badRequest("bad_parameter", "limit \"\(request.query["limit"] ?? "")\" must be 1...10000")
            }
            let filter = try auditFilter(request.query)
            // Every filter is an indexed column: the newest `limit` matches, however old.
            let records: [AuditRecord]
            let bad: Int
            do {
                (records, bad) = try await engine.audit.read(limit: limit, matching: filter)
            } catch {
                throw APIError(status: 500, code: "storage", message: error.description)
            }
            switch request.query["hosts"] {
            case nil: break
            case "all"?:
                guard let fleet else {
                    throw APIError(status: 409, code: "no_fleet", message: "hosts=all needs a fleet; this host is in no fleet")
                }
                var all = records.filter(filter.matches).map { (fleet.settings.host, $0) }
                var unreadable = bad
                for other in await fleet.otherHostsAudit() {
                    all += other.records.filter(filter.matches).map { (other.host, $0) }
                    unreadable += other.unreadable
                }
                all.sort { ($0.1.time, $0.0) < ($1.1.time, $1.0) }
                let page = all.suffix(limit)
                return json(200, AuditPage(records: page.map(\.1), unreadable: unreadable, hosts: page.map(\.0)))
            case let other?:
                throw APIError.badRequest("bad_parameter", "hosts \"\(other)\" must be \"all\"")
            }
            return json(200, AuditPage(records: Array(records.filter(filter.matches).suffix(limit)), unreadable: bad))
        }
        let allowed = (Self.routes + Self.historyRoutes).filter { r in
            r.pattern.count == route.count && zip(r.pattern, route).allSatisfy { $0 == "*" || $0 == $1 }
        }.map(\.method)
        guard allowed.isEmpty else {
            var response = APIError(
                status: 405, code: "method_not_allowed",
                message: "\(m) is not allowed on \(request.path) (allowed: \(allowed.joined(separator: ", ")))"
            ).response
            response.headers.add(name: "Allow", value: allowed.joined(separator: ", "))
            return response
        }
        throw APIError.notFound("no such path \"\(request.path)\"")
    }


    /// Every route, for 405 answers and their Allow header.
    private static let routes: [(method: String, pattern: [String])] = [
        ("GET", ["health"]), ("GET", ["metrics"]), ("POST", ["reload"]), ("POST", ["sync"]), ("POST", ["backup"]),
        ("GET", ["devices"]),
        ("GET", ["devices", "*"]),
        ("GET", ["pages"]),
        ("GET", ["pages", "*"]),
        ("GET", ["pages", "*", "templates"]), ("POST", ["pages", "*", "templates"]), ("GET", ["pages", "*", "templates", "*"]),
        ("GET", ["pages", "*", "templates", "*", "file"]), ("POST", ["pages", "*", "capture"]),
        ("POST", ["pages", "*", "apply"]),
        ("GET", ["pages", "*", "diff"]), ("GET", ["jobs"]), ("GET", ["jobs", "*"]), ("GET", ["audit"]),
        ("GET", ["conformance"]), ("GET", ["pages", "*", "rollout"]), ("GET", ["identify"]),
    ]

    /// `POST /v1/backup`: a consistent copy of `lastset.db` made now (SQLite's online backup, jobs keep running),
    /// checked, and sent back as the body from an unlinked file in the data directory (never held in memory); the
    /// client writes it where it wants (the daemon's file system is read-only outside its data directory).
    private func backup(_ request: HTTPRequest, who: String) async throws -> HTTPResponse {
        let body = request.body.filter { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        guard body.isEmpty || body == Array("{}".utf8) else {
            throw APIError.badRequest(
                "unexpected_body",
                "POST /v1/backup takes no body (or {}): the copy is sent back in the response and the client writes it where it wants"
            )
        }
        let made: RecordBackup
        do {
            made = try await RecordBackup.make(database: engine.database)
        } catch {
            errorLog("backup for \(who) failed: \(error)")
            throw APIError(status: 500, code: "backup_failed", message: "cannot back up the database: \(error)")
        }
        let taken = TimeText.iso8601(made.takenAt)
        let stamp = taken.filter { $0.isNumber }.prefix(14)
        let headers: HTTPHeaders = [
            "Content-Type": "application/vnd.sqlite3",
            "Content-Disposition": "attachment; filename=\"lastset-\(stamp).db\"",
            "Cache-Control": "no-store",
            "X-Lastset-SHA256": made.sha256,
            "X-Lastset-Schema-Version": "\(made.schemaVersion)",
            "X-Lastset-Database": made.databasePath,
            "X-Lastset-Taken-At": taken,
        ]
        return HTTPResponse(
            status: 200, headers: headers, file: HTTPResponseFile(descriptor: made.descriptor, size: UInt64(made.bytes)))
    }

    // MARK: helpers

    private func auditFilter(_ query: [String: String]) throws -> AuditFilter {
        func value(_ key: String) -> String? { query[key].flatMap { $0.isEmpty ? nil : $0 } }
        func date(_ key: String) throws -> Date? {
            guard let text = value(key) else { return nil }
            guard let date = TimeText.parseISO8601(text) else {
                throw APIError.badRequest("bad_parameter", "\(key) \"\(text)\" is not an ISO 8601 time (2026-12-01T10:00:00Z)")
            }
            return date
        }
        func list<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) throws -> Set<T>?
        where T.RawValue == String {
            guard let text = value(key) else { return nil }
            let (set, why) = AuditFilter.parseList(text, as: type)
            guard let set else { throw APIError.badRequest("bad_parameter", "\(key): \(why ?? text)") }
            return set
        }
        return AuditFilter(
            page: value("page"), device: value("device"), who: value("who"), since: try date("since"), until: try date("until"),
            results: try list("result", AuditResult.self), kinds: try list("kind", AuditKind.self), job: value("job"))
    }

    func isTrue(_ s: String) -> Bool { ["", "1", "true", "yes"].contains(s.lowercased()) }

    /// Decodes a request body after `RequestBody`'s strict checks (unknown or repeated keys, nulls,
    /// non-boolean flags): a misspelt, null or doubled `dryRun` must never turn a dry run into a write.
    func decode<T: Decodable & StrictKeys>(_ type: T.Type, _ request: HTTPRequest) throws -> T {
        do {
            return try RequestBody.decode(type, from: request.body, shape: T.bodyShape)
        } catch {
            throw APIError.badRequest(error.code, error.message)
        }
    }

    func versionNumber(_ text: String) throws -> TemplateVersionRef? {
        guard let ref = TemplateVersionRef.parse(text) else {
            throw APIError.badRequest(
                "bad_version", "version \"\(text)\" is not a positive number, \"<host>-<number>\" or \"latest\"")
        }
        return ref == .latest ? nil : ref
    }

    /// What `GET /v1/health` answers; also the watchdog's self-check (`SelfCheck`), called in the process.
    func health() async -> HealthInfo {
        var health = await info()
        if !accepting.withLock({ $0 }) { health.status = .stopping }
        health.fleet = fleet?.status()
        return health
    }

    func unknownDevice(_ id: String) -> APIError {
        APIError.notFound("unknown device \"\(id)\"").with(code: "unknown_device")
    }

    func page(_ id: String, on deviceId: String? = nil) async throws -> CompiledPage {
        guard SafeName.isValid(id) else {
            throw APIError.badRequest("invalid_name", "invalid page id \"\(id)\": only [A-Za-z0-9][A-Za-z0-9._-]* (max 64)")
        }
        guard let page = await registry.config.page(id, on: deviceId) else {
            throw APIError.notFound("unknown page \"\(id)\"").with(code: "unknown_page")
        }
        return page
    }

    /// The snapshot a job on a configured device runs on, and the device's page `pageId` from the same
    /// config generation: 404 `unknown_device` / `unknown_page`, 422 `page_not_on_device`.
    func jobSnapshot(device deviceId: String, page pageId: String) async throws -> (JobSnapshot, CompiledPage) {
        _ = try await page(pageId)
        guard let snapshot = await registry.snapshot(device: deviceId) else { throw unknownDevice(deviceId) }
        guard snapshot.device.has(page: pageId) else {
            throw APIError.unprocessable("page_not_on_device", "device \"\(deviceId)\" does not have page \"\(pageId)\"")
        }
        guard let page = snapshot.page(pageId) else {
            throw APIError.notFound("unknown page \"\(pageId)\"").with(code: "unknown_page")
        }
        return (snapshot, page)
    }

    func archive<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ArchiveError {
            if case .failureUnaudited = error {
                // The audit log is missing this failure's record: the operator hears of it here, not only the caller.
                errorLog(error.description)
            }
            throw Self.apiError(error, message: error.description)
        }
    }

    /// The answer to an archive error (`message`: the whole error's text, for a failure wrapped in another).
    private static func apiError(_ error: ArchiveError, message: String) -> APIError {
        switch error {
        case .invalidName: return APIError.badRequest("invalid_name", message)
        case .notFound(_, nil): return APIError(status: 404, code: "no_template", message: message)
        case .notFound: return APIError(status: 404, code: "unknown_version", message: message)
        case .corrupt: return APIError(status: 409, code: "template_corrupt", message: message)
        case .conflict: return APIError(status: 409, code: "version_conflict", message: message)
        case .invalidImport, .notAdmissible: return APIError.unprocessable("invalid_template", message)
        case .wrongPage: return APIError.unprocessable("page_mismatch", message)
        case .storage: return APIError(status: 500, code: "storage", message: message)
        // The failure's own answer (a failed store stays 500 `storage`), with the missing record named.
        case .failureUnaudited(let failure, _): return apiError(failure, message: message)
        }
    }

    private func pageSummaries() async -> [PageSummary] {
        let config = await registry.config
        var out: [PageSummary] = []
        for page in config.pages {
            var latest: Int?
            var latestId: String?
            var problem: String?
            do {
                let t = try await engine.archive.load(pageId: page.id)
                latest = t.version
                latestId = t.versionId.id
            } catch {
                if case .corrupt(_, let v, _) = error {
                    latestId = v
                    latest = TemplateVersionRef.parse(v).flatMap {
                        switch $0 {
                        case .number(let n), .id(_, let n): return n
                        case .latest: return nil
                        }
                    }
                    problem = error.description
                }
            }
            out.append(
                PageSummary(
                    id: page.id, title: page.title, registers: page.registers.count,
                    devices: config.devices.filter { $0.has(page: page.id) }.map(\.id), latestVersion: latest,
                    templateProblem: problem, hash: page.hash, latestVersionId: latestId,
                    description: page.definition.description))
        }
        return out
    }

    // MARK: iOS archive import

    /// `POST /v1/pages/{page}/templates` with a legacy iOS archive as the body: `?file=` names it in the
    /// provenance, `?identity.<registerId>=VALUE` or `?identityFrom=DEVICE` supplies its identity values.
    private func importIOSArchive(_ request: HTTPRequest, page: CompiledPage, who: String) async throws -> Template {
        let file = request.query["file"] ?? "upload"
        guard !file.isEmpty, file.count <= 255,
            !file.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw APIError.badRequest("bad_parameter", "file \"\(file.prefix(300))\" must be 1...255 printable characters") }
        let given = request.query.keys.filter { $0.hasPrefix("identity.") }.sorted().map {
            (String($0.dropFirst("identity.".count)), request.query[$0] ?? "")
        }
        let from = request.query["identityFrom"]
        var identity: [IdentityValue] = []
        var note: String?
        switch (given.isEmpty, from) {
        case (false, _?):
            throw APIError.badRequest("bad_parameter", "give identity.<registerId>=VALUE or identityFrom=DEVICE, not both")
        case (true, let deviceId?):
            let (snapshot, _) = try await jobSnapshot(device: deviceId, page: page.id)
            let (device, target) = (snapshot.device, snapshot.target)
            try await hold(target, for: .identityRead)
            let read = await engine.readIdentity(of: page, from: target)
            await registry.release(target.lock)
            switch read {
            case .success(let values): identity = values
            case .failure(let error): throw APIError(status: 502, code: "identity_read_failed", message: error.message)
            }
            note = "identity read from \(device.id)"
        case (false, nil):
            do {
                identity = try IOSArchive.identityValues(page: page, given: given)
            } catch {
                throw APIError.unprocessable("bad_identity", error.description)
            }
            note = "identity given on import"
        case (true, nil):
            break
        }
        do {
            return try await engine.importIOSArchive(
                request.body, file: file, into: page, identity: identity, identityNote: identity.isEmpty ? nil : note, who: who)
        } catch {
            switch error {
            case .invalid: throw APIError.unprocessable("invalid_archive", error.description)
            case .archive(let e): return try await archive { throw e }
            }
        }
    }

    // MARK: jobs

    func ensureAccepting() throws {
        guard accepting.withLock({ $0 }) else {
            throw APIError(status: 503, code: "shutting_down", message: "lastsetd is shutting down and takes no new jobs")
        }
    }

    private func capture(page id: String, body: CaptureRequest, who: String, wait: Bool) async throws -> JobInfo {
        try ensureAccepting()
        let (snapshot, page) = try await jobSnapshot(device: body.device, page: id)
        let (device, target) = (snapshot.device, snapshot.target)
        let engine = self.engine
        let registry = self.registry
        return try await runJob(kind: .capture, page: page, target: target, who: who, wait: wait) { progress in
            let report = await engine.capture(page: page, from: target, who: who, progress: progress)
            if report.archived, let id = report.versionId {
                self.publish(pageId: page.id, versionId: id, kind: .capture, who: who)
            }
            // The device's health follows the cause, never the wording of a message.
            if let lost = report.problems.first(where: { $0.cause != .invalidValue }) {
                await registry.recordFailure(device.id, error: lost.description)
            } else {
                await registry.recordSuccess(device.id)
            }
            return JobOutcome(capture: report)
        }
    }

    private func apply(page id: String, body: ApplyRequest, who: String, wait: Bool) async throws -> JobInfo {
        try ensureAccepting()
        var resolvedPage = try await page(id)
        let target: DeviceTarget
        switch (body.device, body.endpoint) {
        case (let d?, nil):
            guard body.unit == nil else {
                throw APIError.badRequest("bad_request", "\"unit\" goes with \"endpoint\", not with \"device\"")
            }
            let snapshot: JobSnapshot
            (snapshot, resolvedPage) = try await jobSnapshot(device: d, page: id)
            target = snapshot.target
        case (nil, let e?):
            let (endpoint, unit) = try adHocTarget(endpoint: e, unit: body.unit ?? 1)
            let (adHoc, configured, config) = await registry.adHoc(endpoint: endpoint, unit: unit)
            target = adHoc
            // The page as the same generation has it; a configured machine reached by another spelling keeps its
            // own page conventions.
            guard let page = config.page(id, on: configured.flatMap { $0.has(page: id) ? $0.id : nil }) else {
                throw APIError.notFound("unknown page \"\(id)\"").with(code: "unknown_page")
            }
            resolvedPage = page
        case (nil, nil):
            throw APIError.badRequest("missing_target", "give \"device\" (a configured id) or \"endpoint\" (+ \"unit\")")
        case (_?, _?):
            throw APIError.badRequest("bad_request", "give either \"device\" or \"endpoint\", not both")
        }
        let page = resolvedPage
        // What the hub has first, within a short bound; otherwise the replay says it used what is local.
        let fleetWarning = await fleet?.refreshBeforeReplay()
        // Loaded here, once: a missing or corrupt template is an immediate error, not a failed job.
        let template = try await archive { try await self.engine.archive.load(pageId: page.id, version: body.version) }
        if let refusal = VersionPin.refusal(pageId: page.id, confirmed: body.expectVersion, resolved: template.versionId.id) {
            throw APIError.conflict("version_changed", refusal)
        }
        let options = ReplayOptions(dryRun: body.dryRun ?? false, onError: body.onError ?? .stop)
        let engine = self.engine
        let registry = self.registry
        return try await runJob(kind: .apply, page: page, target: target, who: who, wait: wait) { progress in
            var report = await engine.apply(
                page: page, template: template, to: target, options: options, who: who, progress: progress)
            if let fleetWarning { report.warnings.append(fleetWarning) }
            if let deviceId = target.deviceId {
                // A register that failed without an exception code means the device did not answer.
                if let lost = report.registers.first(where: { $0.status == .failed }) {
                    await registry.recordFailure(deviceId, error: "\(lost.registerId): \(lost.message ?? "failed")")
                } else if report.requests > 0 {
                    await registry.recordSuccess(deviceId)
                }
            }
            return JobOutcome(replay: report)
        }
    }

    /// An ad-hoc target's endpoint and unit, checked: 400 `bad_endpoint` or `bad_unit` naming the value.
    func adHocTarget(endpoint text: String, unit: Int) throws -> (Endpoint, Int) {
        let endpoint: Endpoint
        do {
            endpoint = try Endpoint.parse(text)
        } catch {
            throw APIError.badRequest("bad_endpoint", error.description)
        }
        guard (1...247).contains(unit) else { throw APIError.badRequest("bad_unit", "unit \(unit) is not in 1...247") }
        return (endpoint, unit)
    }

    /// Commits a version this host just archived to the fleet repository, without holding up the job
    /// (a sync in progress holds the repository; the next sync commits anything left behind).
    func publish(_ template: Template, kind: AuditKind, who: String) {
        publish(pageId: template.pageId, versionId: template.versionId.id, kind: kind, who: who)
    }

    private func publish(pageId: String, versionId: String, kind: AuditKind, who: String) {
        guard let fleet else { return }
        let log = fleetLog
        Task {
            if let warning = await fleet.record(pageId: pageId, versionId: versionId, kind: kind, who: who) { log(warning) }
        }
    }

    /// Commits this host's delete and promote records to the fleet repository without holding up the answer (the
    /// next sync commits anything left behind).
    func publishRecords() {
        guard let fleet else { return }
        let log = fleetLog
        Task { if let warning = await fleet.publishRecords() { log(warning) } }
    }

    /// Holds the target for a job of `kind` (release it with `registry.release(target.lock)`): 409 `device_busy`
    /// while another job holds it, 409 `line_settings` when its serial line may not be used with the settings the
    /// target asks for (`LineAccess`). Either way nothing has been sent.
    func hold(_ target: DeviceTarget, for kind: JobKind) async throws {
        switch await registry.acquire(target, for: kind) {
        case .held: return
        case .busy(let holder):
            throw APIError.conflict(
                "device_busy", "\(target.label) is busy with a running \(holder.rawValue); try again when it has finished")
        case .pollInProgress:
            throw APIError.conflict("device_busy", "\(target.label) is being polled; try again")
        case .refused(let refusal):
            throw APIError.conflict("line_settings", refusal.description)
        }
    }

    /// Holds the device, starts the job, releases the device when it ends; 409 when the device is held.
    /// Returns the running job, or the finished one when `wait`.
    func runJob(
        kind: JobKind, page: CompiledPage, target: DeviceTarget, who: String, wait: Bool,
        work: @escaping @Sendable (@escaping ProgressHandler) async -> JobOutcome
    ) async throws -> JobInfo {
        try await runJob(kind: kind, pageId: page.id, target: target, who: who, wait: wait, work: work)
    }

    /// `runJob` for a job about several pages (`pageId` lists them).
    func runJob(
        kind: JobKind, pageId: String, target: DeviceTarget, who: String, wait: Bool,
        work: @escaping @Sendable (@escaping ProgressHandler) async -> JobOutcome
    ) async throws -> JobInfo {
        let key = target.lock
        try await hold(target, for: kind)
        let jobs = self.jobs
        let registry = self.registry
        let job = await jobs.start(JobInfo(id: "", kind: kind, pageId: pageId, device: target.label, who: who)) { id in
            let progress: ProgressHandler = { p in Task { await jobs.update(id, progress: p) } }
            let outcome = await work(progress)
            await registry.release(key)
            return outcome
        }
        guard wait else { return job }
        guard let finished = await jobs.wait(job.id) else { throw APIError.notFound("job \(job.id) vanished") }
        return finished
    }
}

/// A request body whose shape is checked before decoding.
protocol StrictKeys {
    static var bodyShape: RequestBody.Shape { get }
}

extension CaptureRequest: StrictKeys {}
extension ApplyRequest: StrictKeys {}

extension SignInRequest: StrictKeys {
    static var bodyShape: RequestBody.Shape { RequestBody.Shape(keys: ["token"]) }
}

extension APIError {
    fileprivate func with(code: String) -> APIError {
        var e = self
        e.code = code
        return e
    }
}
