import Foundation
import LastsetCore
import LastsetEngine
import LastsetHTTP

/// The conformance routes: what each device page holds and whether it still does (docs/API.md).
extension APIRouter {
    /// `GET /v1/conformance` (`?page=` narrows to one page: 400 `invalid_name`, 404 `unknown_page`).
    func showConformance(_ call: APICall) async throws -> HTTPResponse {
        let pageId = call.query("page")
        if let pageId { _ = try await page(pageId) }
        return .api(200, await conformance(page: pageId))
    }

    /// `GET /v1/pages/{page}/rollout`.
    func showRollout(_ call: APICall) async throws -> HTTPResponse {
        .api(200, await rollout(page: try await page(call.parameter("page"))))
    }

    /// Every device page's conformance (`page` narrows to one page), in config order.
    func conformance(page pageId: String?) async -> [PageConformance] {
        let config = await registry.config
        var out: [PageConformance] = []
        for device in config.devices {
            for p in device.pageIds where pageId == nil || p == pageId {
                let state = await engine.deviceState.state(device: device.id, pageId: p)
                let last = await registry.polledConformance(device: device.id, pageId: p)
                out.append(
                    PageConformance.report(
                        device: device.id, pageId: p, polled: device.pollInterval != nil, state: state, last: last))
            }
        }
        return out
    }

    /// The page's rollout: each device's standing against the latest version.
    /// A device whose applied values equal the latest's effective values on it (its overrides over the new master)
    /// is `equivalent`, not `older`: a master edit marks exactly the devices it changes.
    func rollout(page: CompiledPage) async -> Rollout {
        let template = try? await engine.archive.load(pageId: page.id)
        let latest = template?.versionId.id
        let config = await registry.config
        var devices: [RolloutDevice] = []
        for c in await conformance(page: page.id) {
            let state = await engine.deviceState.state(device: c.device, pageId: c.pageId)
            var changes: [String]?
            if let template, let applied = state?.applied, let onDevice = config.page(page.id, on: c.device),
                let effective = EffectiveTemplate.entries(of: template, on: onDevice, localHost: engine.archive.host)
            {
                changes = EffectiveTemplate.changes(effective, on: onDevice, applied: applied.entries)
            }
            devices.append(
                RolloutDevice(
                    device: c.device,
                    standing: Rollout.standing(c, latestVersion: latest, mark: state?.unverified?.reason, changes: changes),
                    appliedVersion: c.applied?.versionId, conformance: c, changes: changes))
        }
        return Rollout(pageId: page.id, latestVersion: latest, devices: devices)
    }

    /// Device statuses with what each page holds: the version applied, its conformance, and the pages an
    /// interrupted replay left unverified or a failed one partially written.
    func withDeviceState(_ statuses: [DeviceStatus]) async -> [DeviceStatus] {
        let all = await conformance(page: nil)
        var out: [DeviceStatus] = []
        for var s in statuses {
            let mine = all.filter { $0.device == s.id }
            var applied: [String: AppliedSummary] = [:]
            var states: [String: ConformanceState] = [:]
            for c in mine {
                if let a = c.applied { applied[c.pageId] = a }
                states[c.pageId] = c.state
            }
            s.applied = applied.isEmpty ? nil : applied
            s.conformance = states.isEmpty ? nil : states
            var marks: [UnverifiedMark] = []
            for p in s.pages {
                if let m = await engine.deviceState.state(device: s.id, pageId: p)?.unverified { marks.append(m) }
            }
            s.unverified = marks.isEmpty ? nil : marks
            s.machine = await engine.machines.record(device: s.id).event
            out.append(s)
        }
        return out
    }
}
