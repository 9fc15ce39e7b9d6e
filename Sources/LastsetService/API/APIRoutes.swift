import LastsetCore
import LastsetHTTP

extension APIRouter {
    /// What answers a route: the router and the request as the route sees it.
    typealias Handler = @Sendable (APIRouter, APICall) async throws -> HTTPResponse

    /// The body limit of a template import (`POST /v1/pages/{page}/templates`): a template file of a large page
    /// or a legacy iOS archive (whose reader refuses more than 8 MiB anyway: `PropertyListReader`) is far beyond
    /// the 64 KiB every other request is held to.
    static let importBodyBytes = 8 * 1024 * 1024

    /// Every route of the control API, each declared once: method, path, who may call it, handler. Dispatch, the
    /// access check, 405's `Allow` header (methods in this order) and docs/API.md's route index (compared by
    /// `APIRouteTableTests`) all come from it.
    static let table = RouteTable<Handler>([
        .init(.get, "/v1/health", .viewer) { r, _ in .api(200, await r.health()) },
        .init(.get, "/v1/devices", .viewer) { r, _ in await r.listDevices() },
        .init(.get, "/v1/devices/{id}", .viewer) { try await $0.showDevice($1) },
        .init(.get, "/v1/pages", .viewer) { r, _ in await r.listPages() },
        .init(.get, "/v1/pages/{page}", .viewer) { try await $0.showPage($1) },
        .init(.get, "/v1/pages/{page}/templates", .viewer) { try await $0.listTemplates($1) },
        .init(.get, "/v1/pages/{page}/templates/{version}", .viewer) { try await $0.showTemplate($1) },
        .init(.get, "/v1/pages/{page}/templates/{version}/file", .viewer) { try await $0.templateFile($1) },
        .init(.post, "/v1/pages/{page}/templates", .operator, maxBodyBytes: importBodyBytes) {
            try await $0.importTemplate($1)
        },
        .init(.post, "/v1/pages/{page}/capture", .operator) { try await $0.capture($1) },
        .init(.post, "/v1/pages/{page}/apply", .operatorUnlessDryRun) { try await $0.apply($1) },
        .init(.get, "/v1/pages/{page}/diff", .viewer) { try await $0.diff($1) },
        .init(.get, "/v1/identify", .viewer) { try await $0.identify($1) },
        .init(.post, "/v1/scan", .operator) { try await $0.scan($1) },
        .init(.get, "/v1/jobs", .viewer) { r, _ in .api(200, body: APICoding.json(await r.jobs.list())) },
        .init(.get, "/v1/jobs/{id}", .viewer) { try await $0.showJob($1) },
        .init(.get, "/v1/events", .viewer) { try $0.streamEvents($1) },
        .init(.get, "/v1/metrics", .viewer) { r, _ in await r.metrics() },
        .init(.get, "/v1/pages/{page}/templates/{version}/diff", .viewer) { try await $0.compareVersions($1) },
        .init(.post, "/v1/pages/{page}/templates/{version}/promote", .operator) { try await $0.promote($1) },
        .init(.delete, "/v1/pages/{page}/templates/{version}", .operator) { try await $0.deleteVersion($1) },
        .init(.post, "/v1/devices/{id}/apply", .operatorUnlessDryRun) { try await $0.applyAll($1) },
        .init(.get, "/v1/devices/{id}/as-found", .viewer) { try await $0.listAsFound($1) },
        .init(.post, "/v1/devices/{id}/as-found", .operator) { try await $0.takeAsFound($1) },
        .init(.get, "/v1/devices/{id}/as-found/{page}/{number}", .viewer) { try await $0.showAsFound($1) },
        .init(.post, "/v1/changes", .operator) { try await $0.fileChange($1) },
        .init(.get, "/v1/changes", .viewer) { r, _ in await r.listChanges() },
        .init(.get, "/v1/changes/{id}", .viewer) { try await $0.showChange($1) },
        .init(.post, "/v1/changes/{id}/approve", .approver) { try await $0.signChange($1) },
        .init(.post, "/v1/changes/{id}/apply", .operator) { try await $0.applyChange($1) },
        .init(.get, "/v1/conformance", .viewer) { try await $0.showConformance($1) },
        .init(.get, "/v1/pages/{page}/rollout", .viewer) { try await $0.showRollout($1) },
        .init(.get, "/v1/audit", .viewer) { try await $0.audit($1) },
        .init(.get, "/v1/audit/verify", .viewer) { r, _ in try await r.verifyAuditChain() },
        .init(.post, "/v1/audit/acknowledge", .administrator) { try await $0.acknowledgeAuditChain($1) },
        .init(.get, "/v1/certificates/{job}", .viewer) { try await $0.showCertificate($1) },
        .init(.get, "/v1/certificates/{job}/{format}", .viewer) { try await $0.certificateFile($1) },
        .init(.post, "/v1/reload", .operator) { r, _ in try await r.reloadConfig() },
        .init(.post, "/v1/sync", .operator) { r, _ in try await r.sync() },
        .init(.get, "/v1/fleet/doctor", .viewer) { r, _ in try await r.fleetDoctor() },
        .init(.post, "/v1/fleet/repair/quarantine", .administrator) { try await $0.fleetRepair($1, way: .quarantine) },
        .init(.post, "/v1/fleet/repair/reclone", .administrator) { try await $0.fleetRepair($1, way: .reclone) },
        .init(.get, "/v1/fleet/pages/{page}", .viewer) { try await $0.showFleetPage($1) },
        .init(.post, "/v1/fleet/pages/{page}/take", .operator) { try await $0.takeFleetPage($1) },
        .init(.post, "/v1/fleet/pages/{page}/release", .operator) { try await $0.releaseFleetPage($1) },
        .init(.post, "/v1/backup", .operator) { try await $0.backup($1) },
        .init(.get, "/v1/session", .session) { r, c in r.showSession(c) },
        .init(.post, "/v1/session", .session) { r, c in try r.signIn(c) },
        .init(.delete, "/v1/session", .session) { r, c in try r.signOut(c) },
    ])
}
