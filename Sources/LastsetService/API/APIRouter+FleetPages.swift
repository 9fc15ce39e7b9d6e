import Foundation
import LastsetCore
import LastsetEngine
import LastsetFleet
import LastsetHTTP

/// Shared page definitions: this host's page against the fleet's, and taking (or releasing) the fleet's definition
/// (docs/FLEET.md, "Pages that differ between hosts").
extension APIRouter {
    /// The configured page `{page}` and this host's fleet.
    private func fleetPage(_ call: APICall) async throws -> (Fleet, CompiledPage) {
        (try requireFleet(), try await page(try call.parameter("page")))
    }

    private var definitions: PageDefinitionStore { PageDefinitionStore(dataDirectory: engine.dataDirectory) }

    /// `GET /v1/fleet/pages/{page}`: this host's page against the fleet's definition, register by register.
    func showFleetPage(_ call: APICall) async throws -> HTTPResponse {
        let (fleet, page) = try await fleetPage(call)
        return .api(200, await fleet.pageView(page, taken: try storage { try definitions.taken(pageId: page.id) }))
    }

    /// `POST /v1/fleet/pages/{page}/take?reason=…[&version=…]`: the fleet's definition of the page is kept in the data
    /// directory and used in place of the config's from now on (a reload follows); audited. `version`: the fleet
    /// version the operator saw (refused when the fleet's latest is another by now).
    func takeFleetPage(_ call: APICall) async throws -> HTTPResponse {
        let (fleet, page) = try await fleetPage(call)
        let reason = try requiredReason(call, for: "taking a page definition")
        let view = await fleet.pageView(page, taken: nil)
        guard let fleetVersion = view.fleetVersion, !view.same else {
            throw APIError.conflict(
                .definitionSame, "page \"\(page.id)\" here is the fleet's definition already (\(page.hash)): nothing to take")
        }
        if let confirmed = call.query("version"), confirmed != fleetVersion {
            throw APIError.conflict(
                .versionChanged,
                "the fleet's latest version of \(page.id) is \(fleetVersion) now, not \(confirmed): nothing taken; look again")
        }
        guard let definition = view.definition else {
            throw APIError.conflict(
                .definitionUnpublished,
                "version \(fleetVersion) was captured against \(view.fleetHash ?? "?"), a definition no host published (a version from before definitions were published): capture the page again on a host with that definition, or edit this host's config")
        }
        let problems = definition.configProblems()
        guard problems.isEmpty else {
            throw APIError.unprocessable(
                .definitionInvalid,
                "the fleet's definition of \(page.id) would not pass as this host's config; nothing taken:\n"
                    + problems.map(\.description).joined(separator: "\n"))
        }
        let taken = TakenPageDefinition(
            definition: definition, fromVersion: fleetVersion, takenBy: call.who, takenAt: Date(), reason: reason,
            replacedHash: page.hash)
        try storage { try definitions.save(taken) }
        let what = view.differences.map { $0.summary } ?? ""
        await auditDefinition(
            page.id, version: fleetVersion, hash: definition.pageHash, who: call.who,
            message:
                "took the fleet's definition of \(page.id) (\(definition.pageHash), version \(fleetVersion), published by \(definition.host)) in place of \(page.hash)\(what.isEmpty ? "" : ": \(what)"): \(reason)")
        return try await reloaded(fleet, pageId: page.id)
    }

    /// `POST /v1/fleet/pages/{page}/release?reason=…`: the config's definition of the page is used again; audited.
    func releaseFleetPage(_ call: APICall) async throws -> HTTPResponse {
        let (fleet, page) = try await fleetPage(call)
        let reason = try requiredReason(call, for: "releasing a page definition")
        guard let taken = try storage({ try definitions.taken(pageId: page.id) }) else {
            throw APIError.conflict(.definitionNotTaken, "page \"\(page.id)\" runs on the config's definition: nothing to release")
        }
        _ = try storage { try definitions.release(pageId: page.id) }
        await auditDefinition(
            page.id, version: taken.fromVersion, hash: taken.replacedHash, who: call.who,
            message:
                "released the fleet's definition of \(page.id) (\(taken.definition.pageHash), taken by \(taken.takenBy)): the config's is in force again: \(reason)")
        return try await reloaded(fleet, pageId: page.id)
    }

    /// Reloads the config (a taken definition is applied at every load) and answers the page's view after it.
    private func reloaded(_ fleet: Fleet, pageId: String) async throws -> HTTPResponse {
        if case .refused(let file, let problems) = await reload() {
            throw APIError.unprocessable(
                .configInvalid,
                "saved, but the reload that puts it in force was refused (\(file)): \(problems.joined(separator: "; ")); it is in force after the next reload that succeeds")
        }
        let page = try await page(pageId)
        return .api(200, await fleet.pageView(page, taken: try storage { try definitions.taken(pageId: pageId) }))
    }

    /// The page-definitions store's errors as 500 `storage`.
    private func storage<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw APIError(status: 500, code: .storage, message: "\(error)")
        }
    }

    /// Audits a take or release (kind `page-definition`).
    private func auditDefinition(_ pageId: String, version: String, hash: String, who: String, message: String) async {
        let record = AuditRecord(
            time: Date(), kind: .pageDefinition, who: who, pageId: pageId, device: "", endpoint: "", unit: 0, identity: [],
            templateVersion: nil, pageHash: hash, result: .succeeded, message: message, registers: [],
            job: UUID().uuidString, templateVersionId: version)
        do {
            try await engine.audit.append(record)
        } catch {
            errorLog("audit record of a page definition change could not be written: \(error)")
        }
    }
}
