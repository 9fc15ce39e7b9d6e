import Foundation
import LastsetCore
import LastsetEngine
import Synchronization

/// The "watch" job: reads each polled device's pages at its interval, keeping live values and health.
/// Sleeps between polls (no CPU when idle); skips a device while a capture or replay holds it.
final class Poller: Sendable {
    private let registry: DeviceRegistry
    private let log: Logger
    private let tasks = Mutex<[Task<Void, Never>]>([])

    init(registry: DeviceRegistry, log: Logger) {
        self.registry = registry
        self.log = log
    }

    /// Starts one polling task per device with a non-zero `poll` (restarting any running ones).
    func start(config: CompiledConfig) {
        stop()
        var started: [Task<Void, Never>] = []
        for device in config.devices {
            guard let interval = device.pollInterval else { continue }
            let pages = config.pages(of: device)
            let registry = self.registry
            let log = self.log
            started.append(
                Task {
                    while !Task.isCancelled {
                        await Self.poll(device: device, pages: pages, registry: registry, log: log)
                        try? await Task.sleep(for: interval)
                    }
                })
        }
        tasks.withLock { $0 = started }
    }

    /// Cancels every polling task.
    func stop() {
        let running = tasks.withLock { t in
            defer { t = [] }
            return t
        }
        for t in running { t.cancel() }
    }

    private static func poll(device: CompiledDevice, pages: [CompiledPage], registry: DeviceRegistry, log: Logger) async {
        let target = await registry.target(for: device)
        let key = target.lockKey
        guard await registry.beginPoll(key) else { return }
        for page in pages {
            let (values, _, error) = await LiveReader.read(page: page, from: target)
            if let error {
                await registry.recordFailure(device.id, error: error, page: page.id, live: values)
                log.debug("poll \(device.id) page \(page.id): \(error)")
            } else {
                await registry.recordSuccess(device.id, page: page.id, live: values)
            }
        }
        await registry.endPoll(key)
    }
}
