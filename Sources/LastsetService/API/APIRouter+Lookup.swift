import LastsetCore
import LastsetEngine

/// The names a request gives — page, device, version — resolved against the config and checked, each refusal
/// with its documented code (docs/API.md, "Errors").
extension APIRouter {
    /// The page `id` (compiled with `deviceId`'s conventions when given): 400 `invalid_name`, 404 `unknown_page`.
    func page(_ id: String, on deviceId: String? = nil) async throws -> CompiledPage {
        guard SafeName.isValid(id) else {
            throw APIError.badRequest(.invalidName, "invalid page id \"\(id)\": only [A-Za-z0-9][A-Za-z0-9._-]* (max 64)")
        }
        guard let page = await registry.config.page(id, on: deviceId) else { throw Self.unknownPage(id) }
        return page
    }

    /// 404 `unknown_page`.
    static func unknownPage(_ id: String) -> APIError { .notFound(.unknownPage, "unknown page \"\(id)\"") }

    /// 404 `unknown_device`.
    static func unknownDevice(_ id: String) -> APIError { .notFound(.unknownDevice, "unknown device \"\(id)\"") }

    /// The snapshot a job on a configured device runs on, and the device's page `pageId` from the same
    /// config generation: 404 `unknown_device` / `unknown_page`, 422 `page_not_on_device`.
    func jobSnapshot(device deviceId: String, page pageId: String) async throws -> (JobSnapshot, CompiledPage) {
        _ = try await page(pageId)
        guard let snapshot = await registry.snapshot(device: deviceId) else { throw Self.unknownDevice(deviceId) }
        guard snapshot.device.has(page: pageId) else {
            throw APIError.unprocessable(.pageNotOnDevice, "device \"\(deviceId)\" does not have page \"\(pageId)\"")
        }
        guard let page = snapshot.page(pageId) else { throw Self.unknownPage(pageId) }
        return (snapshot, page)
    }

    /// An ad-hoc target's endpoint and unit, checked: 400 `bad_endpoint` or `bad_unit` naming the value.
    func adHocTarget(endpoint text: String, unit: Int) throws -> (Endpoint, Int) {
        let endpoint: Endpoint
        do {
            endpoint = try Endpoint.parse(text)
        } catch {
            throw APIError.badRequest(.badEndpoint, error.description)
        }
        guard (1...247).contains(unit) else { throw APIError.badRequest(.badUnit, "unit \(unit) is not in 1...247") }
        return (endpoint, unit)
    }

    /// A version as a path or query gives it; nil for `latest`. 400 `bad_version`.
    func versionNumber(_ text: String) throws -> TemplateVersionRef? {
        guard let ref = TemplateVersionRef.parse(text) else {
            throw APIError.badRequest(
                .badVersion, "version \"\(text)\" is not a positive number, \"<host>-<number>\" or \"latest\"")
        }
        return ref == .latest ? nil : ref
    }
}
