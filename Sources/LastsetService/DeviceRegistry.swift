import Foundation
import LastsetCore
import LastsetEngine
import ModbusLink

/// The configured devices: their connections, health, live values and which job holds each one.
/// A device is held by at most one capture or replay at a time; polling skips held devices.
actor DeviceRegistry {
    private(set) var config: LastsetConfig
    private let pool = ConnectionPool()
    private var states: [String: DeviceStatus] = [:]
    /// Lock key (connection + unit) → kind of the job holding it.
    private var held: [String: String] = [:]

    init(config: LastsetConfig) {
        self.config = config
        states = Self.states(for: config, keeping: [:])
    }

    /// Swaps in a reloaded config; health of devices that stay is kept.
    func replace(config: LastsetConfig) {
        self.config = config
        states = Self.states(for: config, keeping: states)
    }

    private static func states(for config: LastsetConfig, keeping states: [String: DeviceStatus]) -> [String: DeviceStatus] {
        var next: [String: DeviceStatus] = [:]
        for d in config.devices {
            var s =
                states[d.id]
                ?? DeviceStatus(id: d.id, endpoint: d.endpoint, unit: d.unit, pages: d.pages ?? [], poll: d.poll ?? "0s")
            s.endpoint = d.endpoint
            s.unit = d.unit
            s.pages = d.pages ?? []
            s.poll = d.poll ?? "0s"
            s.live = s.live.filter { (d.pages ?? []).contains($0.key) }
            next[d.id] = s
        }
        return next
    }

    /// The key that serialises jobs on one device: its connection and unit.
    nonisolated static func lockKey(_ endpoint: Endpoint, unit: Int) -> String { "\(endpoint.connectionKey)#\(unit)" }

    /// A job target for a configured device (its endpoint was checked when the config loaded).
    func target(for device: DeviceConfig) async throws(EndpointError) -> DeviceTarget {
        let endpoint = try Endpoint.parse(device.endpoint)
        let limits = device.limits
        let connection = await pool.connection(for: endpoint, options: LinkOptions(limits))
        return DeviceTarget(deviceId: device.id, endpoint: endpoint, unit: device.unit, limits: limits, connection: connection)
    }

    /// A job target for a machine not in the config, with default limits.
    func adHocTarget(endpoint: Endpoint, unit: Int) async -> DeviceTarget {
        // A configured device on the same endpoint and unit lends its quirks.
        if let known = config.devices.first(where: { (try? Endpoint.parse($0.endpoint)) == endpoint && $0.unit == unit }),
            let t = try? await target(for: known)
        {
            return DeviceTarget(deviceId: nil, endpoint: endpoint, unit: unit, limits: t.limits, connection: t.connection)
        }
        let limits = DeviceLimits()
        let connection = await pool.connection(for: endpoint, options: LinkOptions(limits))
        return DeviceTarget(deviceId: nil, endpoint: endpoint, unit: unit, limits: limits, connection: connection)
    }

    /// Devices being polled right now.
    private var polling: Set<String> = []

    /// Holds the device for a job; false when another job holds it. A poll in progress is let
    /// finish first (polls are short), so a job never interleaves with a poll.
    func acquire(_ key: String, for kind: String) async -> Bool {
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
    func holder(_ key: String) -> String? { held[key] }

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

    /// Every device's status, in config order.
    func statuses() async -> [DeviceStatus] {
        var out: [DeviceStatus] = []
        for d in config.devices {
            guard var s = states[d.id] else { continue }
            if let e = try? Endpoint.parse(d.endpoint) { s.busy = held[Self.lockKey(e, unit: d.unit)] }
            out.append(s)
        }
        return out
    }

    /// Closes every connection (shutdown).
    func closeAll() async { await pool.closeAll() }
}
