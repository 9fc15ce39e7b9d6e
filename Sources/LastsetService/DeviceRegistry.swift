import Foundation
import LastsetCore
import LastsetEngine
import ModbusLink

/// The configured devices: their connections, health, live values and which job holds each one.
/// A device is held by at most one capture or replay at a time; polling skips held devices.
actor DeviceRegistry {
    private(set) var config: CompiledConfig
    private let pool = ConnectionPool()
    private var states: [String: DeviceStatus] = [:]
    /// Lock key (resolved machine + unit) → kind of the job holding it.
    private var held: [String: JobKind] = [:]
    /// Each configured device's machine and connection, resolved once per config.
    private var resolved: [String: (machine: MachineKey, connection: ModbusConnection)] = [:]

    init(config: CompiledConfig) {
        self.config = config
        states = Self.states(for: config, keeping: [:])
    }

    /// Swaps in a reloaded config; health of devices that stay is kept.
    func replace(config: CompiledConfig) {
        self.config = config
        resolved = [:]
        states = Self.states(for: config, keeping: states)
        conformance = conformance.filter { id, _ in config.device(id) != nil }
    }

    private static func states(for config: CompiledConfig, keeping states: [String: DeviceStatus]) -> [String: DeviceStatus] {
        var next: [String: DeviceStatus] = [:]
        for d in config.devices {
            var s =
                states[d.id]
                ?? DeviceStatus(id: d.id, endpoint: d.endpointText, unit: d.unit, pages: d.pageIds, poll: d.pollText)
            s.endpoint = d.endpointText
            s.unit = d.unit
            s.pages = d.pageIds
            s.poll = d.pollText
            s.live = s.live.filter { d.pageIds.contains($0.key) }
            next[d.id] = s
        }
        return next
    }

    /// A job target for a configured device.
    func target(for device: CompiledDevice) async -> DeviceTarget {
        let (machine, connection) = await resolve(device)
        return DeviceTarget(
            deviceId: device.id, endpoint: device.endpoint, unit: device.unit, limits: device.limits, connection: connection,
            machine: machine)
    }

    private func resolve(_ device: CompiledDevice) async -> (machine: MachineKey, connection: ModbusConnection) {
        if let r = resolved[device.id] { return r }
        let (connection, machine) = await pool.connection(for: device.endpoint, options: LinkOptions(device.limits))
        resolved[device.id] = (machine, connection)
        return (machine, connection)
    }

    /// A job target for a machine not in the config, and the configured device it turns out to be, if
    /// any. Its lock and connection are those of whatever configured device resolves to the same machine
    /// and unit (whose quirks and "not set" convention then apply), however the endpoint is spelt.
    func adHoc(endpoint: Endpoint, unit: Int) async -> (target: DeviceTarget, configured: CompiledDevice?) {
        let (connection, machine) = await pool.connection(for: endpoint, options: LinkOptions(DeviceLimits()))
        var configured: CompiledDevice?
        for d in config.devices where d.unit == unit {
            if await resolve(d).machine == machine {
                configured = d
                break
            }
        }
        let target = DeviceTarget(
            deviceId: nil, endpoint: endpoint, unit: unit, limits: configured?.limits ?? DeviceLimits(), connection: connection,
            machine: machine)
        return (target, configured)
    }

    /// Devices being polled right now.
    private var polling: Set<String> = []

    /// Holds the device for a job; false when another job holds it. A poll in progress is let
    /// finish first (polls are short), so a job never interleaves with a poll.
    func acquire(_ key: String, for kind: JobKind) async -> Bool {
        guard held[key] == nil else { return false }
        held[key] = kind
        while polling.contains(key) { try? await Task.sleep(for: .milliseconds(5)) }
        return true
    }

    /// Marks the device as being polled; false when a job holds it (the poll is skipped).
    func beginPoll(_ key: String) -> Bool {
        guard held[key] == nil, !polling.contains(key) else { return false }
        polling.insert(key)
        return true
    }

    /// Ends a poll started with `beginPoll`.
    func endPoll(_ key: String) { polling.remove(key) }

    /// Releases a device held by `acquire`.
    func release(_ key: String) { held[key] = nil }

    /// The kind of job holding the device, if any.
    func holder(_ key: String) -> JobKind? { held[key] }

    /// Records a successful poll (or job request) of a device.
    func recordSuccess(_ id: String, page: String? = nil, live: [LiveValue]? = nil) {
        guard var s = states[id] else { return }
        s.reachable = true
        s.lastSuccessAt = Date()
        if let page, let live { s.live[page] = live }
        states[id] = s
    }

    /// Records a failed request to a device.
    func recordFailure(_ id: String, error: String, page: String? = nil, live: [LiveValue]? = nil) {
        guard var s = states[id] else { return }
        s.reachable = false
        s.lastError = error
        s.lastErrorAt = Date()
        if let page, let live { s.live[page] = live }
        states[id] = s
    }

    /// Conformance of polled device pages: device id → page id → last verdict.
    private var conformance: [String: [String: PageConformance]] = [:]

    /// Records a poll's conformance verdict; returns what changed (for the log).
    func recordConformance(device: String, pageId: String, verdict: ConformanceVerdict, applied: AppliedSummary?)
        -> DriftChange
    {
        let (next, change) = PageConformance.next(
            after: conformance[device]?[pageId], verdict: verdict, device: device, pageId: pageId, applied: applied,
            at: Date())
        conformance[device, default: [:]][pageId] = next
        return change
    }

    /// The last polled conformance of a device page (nil: not polled since start or reload).
    func polledConformance(device: String, pageId: String) -> PageConformance? { conformance[device]?[pageId] }

    /// Every device's status, in config order.
    func statuses() async -> [DeviceStatus] {
        var out: [DeviceStatus] = []
        for d in config.devices {
            guard var s = states[d.id] else { continue }
            let (machine, connection) = await resolve(d)
            s.busy = held[machine.lockKey(unit: d.unit)]
            s.counters = await connection.linkCounters(unit: d.unit)
            out.append(s)
        }
        return out
    }

    /// Closes every connection (shutdown).
    func closeAll() async { await pool.closeAll() }
}
