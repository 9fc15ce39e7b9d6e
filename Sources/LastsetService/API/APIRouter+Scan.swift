import LastsetCore
import LastsetEngine
import LastsetFormats
import LastsetHTTP

/// `POST /v1/scan`: discovery on one endpoint, as a job (docs/IDENTIFICATION.md, docs/API.md).
extension APIRouter {
    /// Checks the body, resolves the machine and the pages to judge, and starts the scan (`DeviceJobs.scan`):
    /// 202 with the running job, 200 with the finished one under `?wait`.
    func scan(_ call: APICall) async throws -> HTTPResponse {
        let body = try call.decode(ScanRequest.self)
        try ensureAccepting()
        let (endpoint, _) = try adHocTarget(endpoint: body.endpoint, unit: 1)
        let units: [Int]
        switch UnitSelection.parse(body.units ?? "1-247") {
        case .success(let u): units = u
        case .failure(let error): throw APIError.badRequest(.badUnits, error.description)
        }
        let timeoutText = body.timeout ?? "200ms"
        guard let timeout = DurationText.parse(timeoutText), timeout >= .milliseconds(10), timeout <= .seconds(10) else {
            throw APIError.badRequest(.badTimeout, "timeout \"\(timeoutText.prefix(40))\" is not a duration from 10ms to 10s")
        }
        let sweeps = try Self.sweepEndpoints(endpoint, bauds: body.bauds)
        let (target, _, config) = await registry.adHoc(endpoint: sweeps[0], unit: 1)
        var pages: [(page: CompiledPage, latest: Template?)] = []
        for page in config.pages where !page.identity.isEmpty || !page.identityObjects.isEmpty {
            pages.append((page, try? await engine.archive.load(pageId: page.id)))
        }
        let plan = DeviceJobs.ScanPlan(
            sweeps: sweeps, units: units, timeout: timeout, pages: pages, target: target,
            report: ScanReport(endpoint: body.endpoint, units: units, timeoutMs: Int(DurationText.milliseconds(timeout))))
        let wait = call.flag("wait")
        let job = try await deviceJobs.scan(plan, label: body.endpoint, who: call.who, wait: wait)
        return .api(wait ? 200 : 202, body: APICoding.json(job))
    }

    /// The endpoint once per baud (a serial line; default: its own baud), or the TCP endpoint alone.
    static func sweepEndpoints(_ endpoint: Endpoint, bauds: [Int]?) throws -> [Endpoint] {
        guard case .rtu(let line) = endpoint else {
            guard bauds == nil else {
                throw APIError.badRequest(.badBauds, "\"bauds\" is for a serial line (rtu://…), not \(endpoint)")
            }
            return [endpoint]
        }
        let list = bauds ?? [line.baud]
        guard !list.isEmpty, list.count <= 12, Set(list).count == list.count else {
            throw APIError.badRequest(.badBauds, "\"bauds\" must list 1 to 12 different baud rates")
        }
        return try list.map { baud in
            guard Endpoint.baudRates.contains(baud) else {
                throw APIError.badRequest(
                    .badBauds,
                    "unsupported baud \(baud) (one of \(Endpoint.baudRates.sorted().map(String.init).joined(separator: ", ")))")
            }
            var swept = line
            swept.baud = baud
            return .rtu(swept)
        }
    }
}
