import LastsetCore
import LastsetEngine
import LastsetFleet
import LastsetHTTP
import Synchronization

/// Answers `/v1/…` requests from the one route table (`APIRouter.table`, docs/API.md): matches the request,
/// checks the caller's role for the route, runs its handler, and turns any failure into its answer on one path.
final class APIRouter: Sendable {
    let registry: DeviceRegistry
    let jobs: JobTable
    let engine: Engine
    /// The jobs that talk to devices (capture, apply, identity reads), on this router's registry, jobs and engine.
    let deviceJobs: DeviceJobs
    /// The fleet this host is part of (nil without a `fleet` section).
    let fleet: Fleet?
    /// Where fleet warnings go (a commit that failed after a capture).
    let fleetLog: @Sendable (String) -> Void
    /// Where errors an operator must hear of go (an audit record that could not be written).
    let errorLog: @Sendable (String) -> Void
    let info: @Sendable () async -> HealthInfo
    /// The daemon's events (`GET /v1/events`; nil: this router sends none).
    let events: EventHub?
    /// Re-reads the config file (`POST /v1/reload`); the daemon passes its `ConfigReloader`.
    let reload: @Sendable () async -> ConfigReloader.Verdict
    /// Hand-over certificates of this engine's jobs, signed with the data directory's certificate key.
    let certificates: CertificateDesk
    /// The change requests of four-eyes change control (docs/CHANGE-CONTROL.md).
    var changes: ChangeRequestStore { engine.changeRequests }
    private let accepting = Mutex(true)
    private let currentAuth: Mutex<HTTPAuth>

    init(
        registry: DeviceRegistry, jobs: JobTable, engine: Engine, auth: HTTPAuth, fleet: Fleet? = nil, events: EventHub? = nil,
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
        self.deviceJobs = DeviceJobs(registry: registry, jobs: jobs, engine: engine)
        self.fleet = fleet
        self.events = events
        self.fleetLog = fleetLog
        self.errorLog = errorLog
        self.currentAuth = Mutex(auth)
        self.reload = reload
        self.info = info
        self.certificates = CertificateDesk(
            engine: engine, keyPath: CertificateDesk.defaultKeyPath(engine: engine),
            host: fleet?.settings.host ?? CertificateDesk.hostName())
    }

    /// The access rules in force.
    var auth: HTTPAuth { currentAuth.withLock { $0 } }

    /// Swaps the access rules (tokens, roles) on reload; open sessions whose token is gone end on their next request.
    func replaceAuth(_ auth: HTTPAuth) { currentAuth.withLock { $0 = auth } }

    /// The larger body limit of a route that takes an upload, by method and path (`HTTPServerConfiguration.uploadLimit`).
    @Sendable static func uploadLimit(method: String, path: String) -> Int? {
        guard case .found(let route, _) = table.match(method: method, path: RoutePath.segments(path)) else { return nil }
        return route.maxBodyBytes
    }

    /// Refuses new captures and replays from now on (shutdown).
    func stopAccepting() { accepting.withLock { $0 = false } }

    /// 503 `shutting_down` once shutdown began: no new job.
    func ensureAccepting() throws {
        guard accepting.withLock({ $0 }) else {
            throw APIError(status: 503, code: .shuttingDown, message: "lastsetd is shutting down and takes no new jobs")
        }
    }

    /// What `GET /v1/health` answers; also the watchdog's self-check (`SelfCheck`), called in the process.
    func health() async -> HealthInfo {
        var health = await info()
        if !accepting.withLock({ $0 }) { health.status = .stopping }
        health.fleet = fleet?.status()
        return health
    }

    /// Handles one request; never throws (every failure becomes a JSON error).
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let auth = self.auth
        let path = RoutePath.segments(request.path)
        if path.first != "v1", let asset = ConsoleFiles.response(for: request) {
            if case .tcp = request.peer, let refusal = auth.hostRefusal(request) { return refusal }
            return asset
        }
        do {
            return try await route(request, path: path, auth: auth)
        } catch {
            return answer(to: error)
        }
    }

    /// The one path from a failure to its HTTP answer: an access refusal as the access rules wrote it, anything
    /// else through `APIError`. An archive failure whose audit record is missing is logged for the operator.
    private func answer(to error: any Error) -> HTTPResponse {
        if let refusal = error as? HTTPError { return refusal.response }
        if let unaudited = APIError.unauditedFailure(in: error) { errorLog(unaudited.description) }
        return APIError(error).response
    }

    /// Matches the request against the table, checks the caller (`caller`), runs the route's handler; 405 for a
    /// known path with another method, 404 for an unknown path.
    private func route(_ request: HTTPRequest, path: [String], auth: HTTPAuth) async throws -> HTTPResponse {
        let match = Self.table.match(method: request.method, path: path)
        let (principal, body) = try caller(of: request, match: match, auth: auth)
        switch match {
        case .found(let route, let parameters):
            let call = APICall(request: request, parameters: parameters, principal: principal, auth: auth, parsedBody: body)
            return try await route.handler(self, call)
        case .methodNotAllowed:
            throw APIError.methodNotAllowed(request.method, path: request.path, allowed: match.allowedMethods)
        case .notFound:
            let hint = path.first == "v1" ? "" : "; the API lives under /v1/"
            throw APIError.notFound(.notFound, "no such path \"\(request.path)\"\(hint)")
        }
    }

    /// Who is calling, checked against the role the request needs, before anything is read from the body or sent
    /// to a device: none on the session endpoints; else the access rules' principal (401/403 from them), and 403
    /// `forbidden_role` below the route's role. A route whose role depends on a dry run has its body parsed here,
    /// once, for its handler too.
    private func caller(of request: HTTPRequest, match: RouteTable<Handler>.Match, auth: HTTPAuth) throws -> (
        HTTPAuth.Principal?, RequestBody.Parsed?
    ) {
        guard match.requiredRole(method: request.method, dryRun: false) != nil else { return (nil, nil) }
        let principal: HTTPAuth.Principal
        switch auth.authorize(request) {
        case .allowed(let p): principal = p
        case .denied(let response): throw HTTPError(response)
        }
        var body: RequestBody.Parsed?
        if case .found(let route, _) = match, route.access.readsDryRun { body = RequestBody.Parsed(request.body) }
        if let needed = match.requiredRole(method: request.method, dryRun: body?.isDryRun ?? false), principal.role < needed {
            throw APIError(
                status: 403, code: .forbiddenRole,
                message:
                    "\(principal.name) is a \(principal.role.rawValue); \(request.method) \(request.path) needs the \(needed.rawValue) role"
            )
        }
        return (principal, body)
    }
}
