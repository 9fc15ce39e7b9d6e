import Foundation
import LastsetCore
import LastsetEngine
import LastsetFormats
import LastsetSystem

/// The "watch" job: reads each polled device's pages at its interval, keeping live values and health.
/// Sleeps between polls (no CPU when idle); skips a device while a capture or replay holds it.
///
/// A service of the daemon's group: every polling loop is a child task of its `run`, one generation per config (at
/// start and after each reload); a new config ends the previous generation's loops and starts its own. Stopped, it
/// ends every loop and waits for a poll in progress.
final class Poller: Service {
    let name = "poller"
    private let registry: DeviceRegistry
    /// What each device page was last applied (compared with every poll).
    private let deviceState: DeviceStateStore
    private let log: Logger
    /// Fingerprints the machines of devices with a `replacement` policy (nil: none is, as in tests without jobs).
    private let watch: MachineWatch?
    /// Hears drift appear and clear (`GET /v1/events`).
    private let events: EventHub?
    /// The configs to poll by, newest last; only the newest one not yet taken matters.
    private let configs: AsyncStream<CompiledConfig>
    private let next: AsyncStream<CompiledConfig>.Continuation

    init(
        registry: DeviceRegistry, deviceState: DeviceStateStore, watch: MachineWatch? = nil, events: EventHub? = nil,
        log: Logger
    ) {
        self.watch = watch
        self.events = events
        self.registry = registry
        self.deviceState = deviceState
        self.log = log
        (configs, next) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Polls the devices of `config` with a non-zero `poll` from now on, instead of the previous config's (at start
    /// and after each reload). After the poller has stopped it does nothing.
    func replace(config: CompiledConfig) { next.yield(config) }

    /// Runs one generation of polling loops per config until stopped.
    func run() async {
        await ServiceGroup.runUntilStopped {
            await withDiscardingTaskGroup { group in
                var current: Gate?
                for await config in self.configs {
                    current?.open()
                    let superseded = Gate()
                    current = superseded
                    group.addTask { await self.poll(config, until: superseded) }
                }
            }
        }
    }

    /// One polling loop per polled device of `config`, until `superseded` opens or the task is cancelled.
    private func poll(_ config: CompiledConfig, until superseded: Gate) async {
        await withTaskGroup(of: Void.self) { group in
            for device in config.devices {
                guard let interval = device.pollInterval else { continue }
                let pages = config.pages(of: device)
                let watch = device.replacement == .off ? nil : self.watch
                let plan = FingerprintPlan(device: device, pages: pages)
                group.addTask {
                    while !Task.isCancelled {
                        if let (target, live, fingerprint) = await Self.poll(
                            device: device, pages: pages, registry: self.registry, deviceState: self.deviceState,
                            fingerprint: watch == nil ? nil : plan, events: self.events, log: self.log)
                        {
                            await watch?.afterPoll(
                                device: device, config: config, target: target, plan: plan, fingerprint: fingerprint,
                                live: live)
                        }
                        try? await Task.sleep(for: interval)
                    }
                }
            }
            group.addTask { await superseded.wait() }
            await group.next()
            group.cancelAll()
        }
    }

    /// One poll of `device`: with `fingerprint`, the machine's fingerprint first (`FingerprintReader`), then every
    /// page. Nil when the device was not polled (held by a job, gone from the config, its line refused); else the
    /// target, each page's values and the fingerprint (nil: not asked for, or not read).
    private static func poll(
        device: CompiledDevice, pages: [CompiledPage], registry: DeviceRegistry, deviceState: DeviceStateStore,
        fingerprint plan: FingerprintPlan?, events: EventHub?, log: Logger
    ) async -> (DeviceTarget, [String: [LiveValue]], MachineFingerprint?)? {
        // A device this poller's config no longer has as given (a reload raced the poll) is left to the next poller.
        guard let target = await registry.target(for: device) else { return nil }
        let key = target.lock
        switch await registry.beginPoll(target) {
        case .held: break
        case .busy, .pollInProgress: return nil
        case .refused(.inUse):
            // The line runs a job at its old settings (a reload changed them): polled once the job ends.
            return nil
        case .refused(let refusal):
            await registry.recordFailure(device.id, error: refusal.description)
            log.debug("poll \(device.id): \(refusal)")
            return nil
        }
        var fingerprint: MachineFingerprint?
        if let plan {
            let read = await FingerprintReader.read(plan, from: target)
            fingerprint = read.fingerprint
            if let error = read.error { log.debug("poll \(device.id): \(error)") }
        }
        var live: [String: [LiveValue]] = [:]
        for page in pages {
            let (values, _, error) = await LiveReader.read(page: page, from: target)
            live[page.id] = values
            if let error {
                await registry.recordFailure(device.id, error: error, page: page.id, live: values)
                log.debug("poll \(device.id) page \(page.id): \(error)")
            } else {
                await registry.recordSuccess(device.id, page: page.id, live: values)
            }
            let state = await deviceState.state(device: device.id, pageId: page.id)
            let verdict: ConformanceVerdict
            if let mark = state?.unverified {
                verdict = .unknown(mark.summary)
            } else if let applied = state?.applied {
                verdict = Conformance.compare(expected: applied.entries, live: values, page: page)
            } else {
                verdict = .unknown("no template applied by this daemon")
            }
            let change = await registry.recordConformance(
                device: device.id, pageId: page.id, verdict: verdict, applied: state?.applied?.summary)
            switch change {
            case .none: break
            case .appeared(let registers):
                events?.publish(
                    ServerEvent(event: .drift, device: device.id, page: page.id, registers: registers.map(\.registerId)))
                let list = registers.map {
                    "\($0.registerId) expected \($0.expected) live \($0.live.map(String.init(describing:)) ?? "0x" + $0.liveData)"
                }
                let version = state?.applied.map { "v\($0.versionId)" } ?? "?"
                log.warning(
                    "drift on \(device.id) page \(page.id) (applied \(version)): \(registers.count) register\(registers.count == 1 ? "" : "s") changed: \(list.joined(separator: "; "))"
                )
            case .cleared(let since):
                events?.publish(ServerEvent(event: .driftCleared, device: device.id, page: page.id))
                log.info(
                    "drift on \(device.id) page \(page.id) cleared: conforms again to the applied template (drifted since \(TimeText.iso8601(since)))"
                )
            }
        }
        await registry.endPoll(key)
        return (target, live, fingerprint)
    }
}
