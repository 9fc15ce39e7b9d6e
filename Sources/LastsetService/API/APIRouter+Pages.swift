import LastsetCore
import LastsetEngine
import LastsetHTTP

/// The config's devices and pages as the API shows them (docs/API.md).
extension APIRouter {
    /// `GET /v1/devices`: every device's health, with what each page holds.
    func listDevices() async -> HTTPResponse {
        .api(200, await withDeviceState(registry.statuses()))
    }

    /// `GET /v1/devices/{id}`: 404 `unknown_device`.
    func showDevice(_ call: APICall) async throws -> HTTPResponse {
        let id = try call.parameter("id")
        guard let status = await withDeviceState(registry.statuses()).first(where: { $0.id == id }) else {
            throw Self.unknownDevice(id)
        }
        return .api(200, status)
    }

    /// `GET /v1/pages/{page}`: the page's definition.
    func showPage(_ call: APICall) async throws -> HTTPResponse {
        .api(200, try await page(call.parameter("page")).definition)
    }

    /// `GET /v1/pages`: every page with its devices and latest version (a corrupt latest named, not hidden).
    func listPages() async -> HTTPResponse {
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
        return .api(200, out)
    }
}
