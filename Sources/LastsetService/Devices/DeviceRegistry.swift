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
    /// The locks held by jobs → kind of the job holding each.
    private var held: [JobLock: JobKind] = [:]
    /// Locks of the polls in progress.
    private var polling: Set<JobLock> = []
    /// Jobs waiting for a conflicting poll to end (resumed at every poll's end; each checks again).
    private var pollEndWaiters: [CheckedContinuation<Void, Never>] = []
    /// Each serial line's framing as the last job or poll let onto it uses it (the connection reopens the line
    /// when a request asks for other settings; `LineAccess` decides who may). Kept across reloads: it is the
    /// line as it is open, not as a config declares it.
    private var lines: [MachineKey: LineSettings] = [:]
    /// Counts config loads: a resolution started under one generation is never kept or returned under another.
    private var generation = 0
    /// Each configured device's machine and connection, resolved at most once per generation: an entry is
    /// stored only if no reload happened while it was being resolved (the resolve suspends on the pool), so a
    /// resolve of the old endpoint can never be written back after `replace(config:)`.
    private var resolved: [String: (machine: MachineKey, connection: ModbusConnection)] = [:]

    init(config: CompiledConfig) {
        self.config = config
        states = Self.states(for: config, keeping: [:])
    }

    /// Swaps in a reloaded config; health of devices that stay is kept. Running jobs keep the snapshot they
    /// were accepted with; new jobs get this generation's.
    func replace(config: CompiledConfig) {
        self.config = config
        generation += 1
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
            s.backup = d.backupInterval == nil ? nil : d.config.backup
            s.live = s.live.filter { d.pageIds.contains($0.key) }
            next[d.id] = s
        }
        return next
    }

    /// A configured device as one generation of the config has it — device, the config it belongs to
    /// (its pages compiled for the device) and its job target (resolved machine, connection, lock) — or nil
    /// when that generation has no such device. Taken in one step: a reload while the machine is being
    /// resolved starts the lookup again under the new generation, so nothing returned mixes two configs.
    func snapshot(device id: String) async -> JobSnapshot? {
        while true {
            let (current, config) = (generation, self.config)
            guard let device = config.device(id) else { return nil }
            let (machine, connection) = await resolve(device)
            let declarations = await lineDeclarations(on: machine, in: config)
            guard current == generation else { continue }
            var target = Self.target(device, machine, connection)
            target.lineDeclarations = declarations
            return JobSnapshot(config: config, device: device, target: target)
        }
    }

    /// What the devices `config` puts on the serial line `machine` declare its settings to be (none for TCP).
    private func lineDeclarations(on machine: MachineKey, in config: CompiledConfig) async -> [LineAccess.Declaration] {
        guard machine.isSerialLine else { return [] }
        var out: [LineAccess.Declaration] = []
        for d in config.devices {
            guard let settings = d.endpoint.lineSettings, await resolve(d).machine == machine else { continue }
            out.append(LineAccess.Declaration(device: d.id, settings: settings))
        }
        return out
    }

    /// A job target for a configured device of the current generation (the poller's own devices: it is
    /// restarted on every reload). Nil when the device is no longer configured as given.
    func target(for device: CompiledDevice) async -> DeviceTarget? {
        guard let snapshot = await snapshot(device: device.id), snapshot.device == device else { return nil }
        return snapshot.target
    }

    private static func target(_ device: CompiledDevice, _ machine: MachineKey, _ connection: ModbusConnection) -> DeviceTarget {
        DeviceTarget(
            deviceId: device.id, endpoint: device.endpoint, unit: device.unit, limits: device.limits, connection: connection,
            machine: machine, gateway: device.gateway)
    }

    /// The device's machine and connection. The cache is used and filled only for a device of the current
    /// generation (a caller may still hold an older one: a device listing that a reload overtook), and an entry
    /// is kept only when no reload happened while resolving.
    private func resolve(_ device: CompiledDevice) async -> (machine: MachineKey, connection: ModbusConnection) {
        let current = generation
        let cacheable = config.device(device.id) == device
        if cacheable, let r = resolved[device.id] { return r }
        let (connection, machine) = await pool.connection(for: device.endpoint, options: LinkOptions(device.limits))
        if cacheable, current == generation { resolved[device.id] = (machine, connection) }
        return (machine, connection)
    }

    /// A job target for a machine not in the config, and the configured device it turns out to be, if
    /// any, with the config of the same generation. When it is a configured device (the same machine and
    /// unit, however the endpoint is spelt) the target *is* that device: its id (state, marks and audit are
    /// recorded under it), quirks, "not set" convention and lock; the endpoint stays the one given.
    func adHoc(endpoint: Endpoint, unit: Int) async -> (target: DeviceTarget, configured: CompiledDevice?, config: CompiledConfig)
    {
        while true {
            let (current, config) = (generation, self.config)
            let (connection, machine) = await pool.connection(for: endpoint, options: LinkOptions(DeviceLimits()))
            var configured: CompiledDevice?
            var gateway = false
            var declarations: [LineAccess.Declaration] = []
            for d in config.devices {
                let m = await resolve(d).machine
                guard m == machine else { continue }
                gateway = gateway || d.gateway
                if d.unit == unit, configured == nil { configured = d }
                if machine.isSerialLine, let settings = d.endpoint.lineSettings {
                    declarations.append(LineAccess.Declaration(device: d.id, settings: settings))
                }
            }
            guard current == generation else { continue }
            let target = DeviceTarget(
                deviceId: configured?.id, endpoint: endpoint, unit: unit, limits: configured?.limits ?? DeviceLimits(),
                connection: connection, machine: machine, gateway: configured?.gateway ?? gateway,
                lineDeclarations: declarations)
            return (target, configured, config)
        }
    }

    /// What `acquire` and `beginPoll` answer.
    enum Acquisition: Equatable {
        /// The device is the caller's (a job: until `release`; a poll: until `endPoll`).
        case held
        /// A job holding the lock or one it conflicts with runs (a job gets 409 `device_busy`; a poll is skipped).
        case busy(JobKind)
        /// A poll of the same lock is already running (polls only).
        case pollInProgress
        /// The target's serial line may not be used with the settings it asks for (409 `line_settings`).
        case refused(LineAccess.Refusal)
    }

    /// Holds the target for a job: its lock, and on a serial line the line with the settings the target's
    /// endpoint gives (decided by `LineAccess` in this one actor step, before any frame).
    func acquire(_ target: DeviceTarget, for kind: JobKind) async -> Acquisition {
        await acquire(target.lock, line: target.endpoint.lineSettings, declared: target.lineDeclarations, for: kind)
    }

    /// Holds the device for a job; `.busy` when a job holding a conflicting lock runs (the same machine as a
    /// whole, or the same unit), `.refused` when the line's settings forbid `line`. A poll in progress is let
    /// finish first (polls are short), so a job never interleaves with a poll.
    func acquire(
        _ lock: JobLock, line: LineSettings? = nil, declared: [LineAccess.Declaration] = [], for kind: JobKind
    ) async -> Acquisition {
        if let holder = holder(lock) { return .busy(holder) }
        if let refusal = claimLine(lock.machine, line, declared) { return .refused(refusal) }
        held[lock] = kind
        while polling.contains(where: { $0.conflicts(with: lock) }) {
            await withCheckedContinuation { pollEndWaiters.append($0) }
        }
        return .held
    }

    /// Marks the target as being polled; `.busy` when a job holds it or a poll runs (the poll is skipped),
    /// `.refused` when its line is open with other settings or the config disagrees about them.
    func beginPoll(_ target: DeviceTarget) -> Acquisition {
        beginPoll(target.lock, line: target.endpoint.lineSettings, declared: target.lineDeclarations)
    }

    /// `beginPoll` by lock (tests; TCP).
    func beginPoll(_ lock: JobLock, line: LineSettings? = nil, declared: [LineAccess.Declaration] = []) -> Acquisition {
        if let holder = holder(lock) { return .busy(holder) }
        if polling.contains(lock) { return .pollInProgress }
        if let refusal = claimLine(lock.machine, line, declared) { return .refused(refusal) }
        polling.insert(lock)
        return .held
    }

    /// The one place a serial line's settings are decided: refused by `LineAccess`, or recorded as the line's
    /// (the next request opens or reopens the line with them). Synchronous: no other job can slip in between.
    private func claimLine(_ machine: MachineKey, _ line: LineSettings?, _ declared: [LineAccess.Declaration])
        -> LineAccess.Refusal?
    {
        guard let line, machine.isSerialLine else { return nil }
        let inUse = held.keys.contains { $0.machine == machine } || polling.contains { $0.machine == machine }
        if let refusal = LineAccess.refusal(
            line: machine, requested: line, declared: declared, open: lines[machine], inUse: inUse)
        {
            return refusal
        }
        lines[machine] = line
        return nil
    }

    /// Ends a poll started with `beginPoll`.
    func endPoll(_ lock: JobLock) {
        polling.remove(lock)
        let waiting = pollEndWaiters
        pollEndWaiters = []
        for w in waiting { w.resume() }
    }

    /// Releases a device held by `acquire`.
    func release(_ lock: JobLock) { held[lock] = nil }

    /// The kind of job holding the lock or one it conflicts with, if any.
    func holder(_ lock: JobLock) -> JobKind? {
        if let kind = held[lock] { return kind }
        return held.first(where: { $0.key.conflicts(with: lock) })?.value
    }

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

    /// Records what a job's report tells of the device's health (nothing when the job never reached it).
    func record(_ contact: DeviceContact, device id: String) {
        switch contact {
        case .answered: recordSuccess(id)
        case .lost(let error): recordFailure(id, error: error)
        case .none: break
        }
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
            s.busy = holder(Self.target(d, machine, connection).lock)
            s.counters = await connection.linkCounters(unit: d.unit)
            out.append(s)
        }
        return out
    }

    /// Closes every connection (shutdown).
    func closeAll() async { await pool.closeAll() }
}
