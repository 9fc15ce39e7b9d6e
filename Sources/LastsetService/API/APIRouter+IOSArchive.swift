import LastsetCore
import LastsetEngine

/// The import of a legacy iOS app archive (`POST /v1/pages/{page}/templates`, docs/API.md).
extension APIRouter {
    /// Archives the body, a legacy iOS archive: `?file=` names it in the provenance, `?identity.<registerId>=VALUE`
    /// or `?identityFrom=DEVICE` supplies its identity values (the archive holds none).
    func importIOSArchive(_ call: APICall, page: CompiledPage) async throws -> Template {
        let query = call.request.query
        let file = query["file"] ?? "upload"
        guard !file.isEmpty, file.count <= 255,
            !file.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw APIError.badRequest(.badParameter, "file \"\(file.prefix(300))\" must be 1...255 printable characters") }
        let (identity, note) = try await identityValues(call, page: page)
        return try await engine.importIOSArchive(
            call.request.body, file: file, into: page, identity: identity, identityNote: identity.isEmpty ? nil : note,
            who: call.who)
    }

    /// The identity an import is given (`identity.<registerId>=VALUE`) or reads from a device (`identityFrom`), and
    /// the provenance note saying which; none when the query gives neither.
    private func identityValues(_ call: APICall, page: CompiledPage) async throws -> ([RecordedValue], String?) {
        let query = call.request.query
        let given = query.keys.filter { $0.hasPrefix("identity.") }.sorted().map {
            (String($0.dropFirst("identity.".count)), query[$0] ?? "")
        }
        switch (given.isEmpty, query["identityFrom"]) {
        case (false, _?):
            throw APIError.badRequest(.badParameter, "give identity.<registerId>=VALUE or identityFrom=DEVICE, not both")
        case (true, let deviceId?):
            let (snapshot, _) = try await jobSnapshot(device: deviceId, page: page.id)
            let identity = try await deviceJobs.readIdentity(of: page, from: snapshot.target)
            return (identity, "identity read from \(snapshot.device.id)")
        case (false, nil):
            do {
                return (try IOSArchive.identityValues(page: page, given: given), "identity given on import")
            } catch {
                throw APIError.unprocessable(.badIdentity, error.description)
            }
        case (true, nil):
            return ([], nil)
        }
    }
}
