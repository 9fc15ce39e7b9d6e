import Foundation
import LastsetClient

/// Issue 20's polling target: lastsetd with many configured devices (default 1,000: 10 simulators × 100 unit
/// ids, each simulator a TCP gateway, a 20-register page each) polled every second, measured over a window after a warm-up: its CPU (% of
/// one core) and its RSS (the largest of one reading a second), and the reads the simulators answered.
extension Bench {
    /// What each device of the load does: polled every second, or backed up as found (docs/AS-FOUND.md) every
    /// `--backup-interval` seconds (unchanged values: each backup reads the page and its identity, compares with the
    /// last record and keeps nothing).
    enum DeviceLoad {
        case poll
        case backup

        var name: String { self == .poll ? "poll" : "backup" }
    }

    func pollSuite() throws { try deviceLoadSuite(.poll) }

    func backupSuite() throws { try deviceLoadSuite(.backup) }

    func deviceLoadSuite(_ kind: DeviceLoad) throws {
        let sims = options.pollSimulators
        let perSim = (options.pollDevices + sims - 1) / sims
        guard perSim <= 247 else {
            throw BenchError(
                "--poll-devices \(options.pollDevices) over \(sims) simulators is \(perSim) unit ids each (at most 247)")
        }
        let page = BenchPage.contiguous(id: "poll\(options.pollWords)", words: options.pollWords)
        let pagesPath = "\(temp)/poll-pages.json"
        try BenchConfig.write(path: pagesPath, pages: [page], devices: [])
        let values = try file("values-\(page.id).json", page.valuesJSON)
        var servers: [SimServer] = []
        defer { for s in servers { s.stop() } }
        for i in 0..<sims {
            servers.append(
                try SimServer(
                    executable: tool("lastset-sim"), config: pagesPath, page: page.id, values: values, delayMs: 0, control: true,
                    name: "sim-poll-\(i)", logDirectory: temp))
        }
        let interval = kind == .poll ? 1 : options.backupIntervalSeconds
        let devices = (0..<options.pollDevices).map { i in
            BenchConfig.Device(
                id: String(format: "poll%04d", i + 1), port: servers[i % sims].port, unit: 1 + i / sims, pages: [page.id],
                poll: kind == .poll ? "1s" : nil, gateway: true, backup: kind == .backup ? "\(interval)s" : nil)
        }
        let configPath = "\(temp)/\(kind.name)-daemon.json"
        try BenchConfig.write(path: configPath, pages: [page], devices: devices)
        _ = try load(configPath)
        let daemon = try DaemonProcess(
            executable: tool("lastsetd"), config: configPath, directory: "\(temp)/\(kind.name)-daemon",
            name: "lastsetd-\(kind.name)", logDirectory: temp)
        defer { daemon.stop() }
        // Backups: every device's first record is made within its first interval (at most a minute); the window
        // measures the steady state after it, when nothing changes.
        let warmup = kind == .poll ? options.pollWarmupSeconds : min(interval, 60) + options.pollWarmupSeconds
        say("\(kind.name): \(options.pollDevices) devices on \(sims) simulators, every \(interval) s; warm-up \(warmup) s")
        Thread.sleep(forTimeInterval: Double(warmup))
        let reachableBefore = kind == .poll ? try reachableDevices(daemon) : options.pollDevices

        let clock = ContinuousClock()
        let frames0 = try servers.reduce(0) { $0 + (try $1.framesSeen()) }
        let simCPU0 = servers.reduce(Duration.zero) { $0 + ProcStats.runtime(pid: $1.pid) }
        let cpu0 = ProcStats.runtime(pid: daemon.pid)
        let start = clock.now
        var maxRSS = try daemon.stats().rssKiB
        var rssSamples = 1
        let end = start + .seconds(options.pollSeconds)
        while clock.now < end {
            Thread.sleep(forTimeInterval: min(1, (end - clock.now).seconds))
            maxRSS = max(maxRSS, try daemon.stats().rssKiB)
            rssSamples += 1
        }
        let cpu1 = ProcStats.runtime(pid: daemon.pid)
        let elapsed = clock.now - start
        let simCPU1 = servers.reduce(Duration.zero) { $0 + ProcStats.runtime(pid: $1.pid) }
        let frames1 = try servers.reduce(0) { $0 + (try $1.framesSeen()) }
        let stats = try daemon.stats()
        let reachableAfter = kind == .poll ? try reachableDevices(daemon) : options.pollDevices
        let window = elapsed.seconds
        let result = BenchReport.Polling(
            devices: options.pollDevices, simulators: sims, words: options.pollWords, pollIntervalSeconds: interval,
            warmupSeconds: warmup, windowSeconds: window,
            cpuSeconds: (cpu1 - cpu0).seconds, cpuPercentOfOneCore: (cpu1 - cpu0).seconds / window * 100,
            maxRSSKiB: maxRSS, rssSamples: rssSamples, peakRSSKiB: stats.peakRSSKiB, anonKiB: stats.anonKiB,
            threads: stats.threads, reachableBefore: reachableBefore, reachableAfter: reachableAfter,
            readsPerSecond: Double(frames1 - frames0) / window,
            simulatorCPUPercentOfOneCore: (simCPU1 - simCPU0).seconds / window * 100)
        if kind == .poll { report.polling = result } else { report.backups = result }
        say(
            "\(kind.name): lastsetd \(String(format: "%.2f", result.cpuPercentOfOneCore)) % of a core, RSS max \(maxRSS / 1024) MiB, \(String(format: "%.0f", result.readsPerSecond)) reads/s, \(reachableAfter) reachable"
        )
    }

    /// Devices the daemon reports reachable (checks that polling really ran).
    func reachableDevices(_ daemon: DaemonProcess) throws -> Int {
        let client = HTTPClient(endpoint: .unix(path: daemon.socketPath), timeout: .seconds(30))
        let response = try client.send(method: "GET", path: "/v1/devices")
        guard response.status == 200, let list = try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]
        else {
            throw BenchError("GET /v1/devices: HTTP \(response.status)")
        }
        return list.filter { $0["reachable"] as? Bool == true }.count
    }
}
