import Foundation
import LastsetClient
import LastsetCore
import LastsetEngine
import ModbusLink

/// Provisioning 1, 8 and 32 blank simulated machines at once (each its own simulator process) with
/// the 1,000-register page, through the engine (one task per machine) and through the daemon API
/// (one HTTP request per machine, all in flight together).
extension Bench {
    static let provisionCounts = [1, 8, 32]

    func provisionSuite() async throws {
        let words = options.sizes.contains(1000) ? 1000 : options.sizes[0]
        let page = BenchPage.contiguous(id: "p\(words)", words: words)
        let configPath = "\(temp)/provision-pages.json"
        let values = try file("values-provision-\(page.id).json", page.valuesJSON)
        try BenchConfig.write(path: configPath, pages: [page], devices: [])
        // The reference machine the template is captured from (by the engine and by the daemon).
        let reference = try SimServer(
            executable: tool("lastset-sim"), config: configPath, page: page.id, values: values, delayMs: 0,
            name: "sim-prov-reference",
            logDirectory: temp)
        defer { reference.stop() }
        let daemonConfig = "\(temp)/provision-daemon.json"
        try BenchConfig.write(
            path: daemonConfig, pages: [page],
            devices: [BenchConfig.Device(id: "reference", port: reference.port, pages: [page.id])],
            // Every machine's request in flight at once, as a provisioning tool would send them (the default
            // allows 8 connections a user).
            socketConnectionsPerUser: Self.provisionCounts.max()!)
        let config = try load(daemonConfig)
        guard let definition = config.page(page.id) else { throw BenchError("page \(page.id) missing from \(daemonConfig)") }
        let daemon = try DaemonProcess(
            executable: tool("lastsetd"), config: daemonConfig, directory: "\(temp)/prov-daemon", name: "lastsetd-prov",
            logDirectory: temp)
        defer { daemon.stop() }
        _ = try daemon.capture(page: page.id, device: "reference")
        let engine = try Engine(dataDirectory: URL(fileURLWithPath: "\(temp)/prov-data"), historyLimit: 5)
        let limits = DeviceLimits()
        let refEndpoint = Endpoint.tcp(host: "127.0.0.1", port: reference.port)
        let refTarget = DeviceTarget(
            deviceId: "reference", endpoint: refEndpoint, unit: 1, limits: limits,
            connection: ModbusConnection(endpoint: refEndpoint, options: LinkOptions(limits)))
        guard await engine.capture(page: definition, from: refTarget, who: "bench").archived else {
            throw BenchError("provisioning: reference capture failed")
        }

        let most = Self.provisionCounts.max()!
        for delay in options.delays {
            var machines: [SimServer] = []
            defer { for m in machines { m.stop() } }
            for i in 0..<most {
                machines.append(
                    try SimServer(
                        executable: tool("lastset-sim"), config: configPath, page: page.id, values: nil, delayMs: delay,
                        name: "sim-prov-d\(delay)-\(i)", logDirectory: temp))
            }
            let ports = machines.map(\.port)
            say("provision: \(most) blank machines up (delay \(delay) ms)")
            // The same machines as configured devices with overrides (docs/OVERRIDES.md), through a daemon of their own.
            let layered = try layeredDaemon(page: page, reference: reference.port, ports: ports, delay: delay)
            defer { layered.stop() }
            var samples: [String: Samples] = [:]
            // Warm-up: every machine once through each path.
            _ = try await provisionEngine(engine, definition, ports: ports)
            _ = try provisionAPI(daemon, page: page.id, ports: ports)
            _ = try provisionAPI(layered, page: page.id, ports: ports, devices: Self.layeredIds(ports.count))
            // CPU time of the simulators serving a run, of Lastset's side (the daemon through the API, this
            // process through the engine) and of the HTTP client (this process, API runs), as every thread's
            // run time from /proc/<pid>/task/*/schedstat (nanoseconds; utime+stime count 10 ms ticks).
            var simCPU: [String: Samples] = [:]
            var lastsetCPU: [String: Samples] = [:]
            var clientCPU: [String: Samples] = [:]
            func cpu(_ pids: [Int32]) -> Duration { pids.reduce(.zero) { $0 + ProcStats.runtime(pid: $1) } }
            for rep in 0..<options.provisionReps {
                let order = rep % 2 == 0 ? Self.provisionCounts : Self.provisionCounts.reversed()
                for n in order {
                    let sims = machines.prefix(n).map(\.pid)
                    for via in ["engine", "api", "api-overrides"] {
                        let own = via == "engine" ? getpid() : via == "api" ? daemon.pid : layered.pid
                        let (s0, l0, c0) = (cpu(sims), cpu([own]), cpu([getpid()]))
                        let elapsed =
                            via == "engine"
                            ? try await provisionEngine(engine, definition, ports: Array(ports.prefix(n)))
                            : via == "api"
                                ? try provisionAPI(daemon, page: page.id, ports: Array(ports.prefix(n)))
                                : try provisionAPI(
                                    layered, page: page.id, ports: Array(ports.prefix(n)), devices: Self.layeredIds(n))
                        samples["\(via)|\(n)", default: Samples()].add(elapsed)
                        simCPU["\(via)|\(n)", default: Samples()].add(cpu(sims) - s0)
                        lastsetCPU["\(via)|\(n)", default: Samples()].add(cpu([own]) - l0)
                        if via != "engine" { clientCPU["\(via)|\(n)", default: Samples()].add(cpu([getpid()]) - c0) }
                    }
                }
            }
            for via in ["engine", "api", "api-overrides"] {
                let one = samples["\(via)|1"]?.median
                for n in Self.provisionCounts {
                    guard let s = samples["\(via)|\(n)"] else { continue }
                    let sim = simCPU["\(via)|\(n)"]?.median
                    let own = lastsetCPU["\(via)|\(n)"]?.median
                    let client = clientCPU["\(via)|\(n)"]?.median
                    // What is left above one machine, and how much of it the simulators' CPU accounts for
                    // when spread over every core (a lower bound of their share of the wait).
                    let excess = one.map { s.median - $0 }
                    let cores = Double(report.machine.nproc)
                    var simShareOfExcess: Double?
                    if let sim, let excess, excess > 0 { simShareOfExcess = sim / cores / excess }
                    let total = [sim, own, client].compactMap { $0 }.reduce(0, +)
                    report.provisioning.append(
                        BenchReport.Provisioning(
                            delayMs: delay, via: via, machines: n, registers: words, medianMs: s.median, minMs: s.min,
                            maxMs: s.max,
                            runs: s.runsMs.count, overOneMachine: one.map { s.median / $0 },
                            simulatorCPUMs: sim, lastsetCPUMs: own, clientCPUMs: client, excessOverOneMs: excess,
                            simulatorShareOfCPU: sim.flatMap { total > 0 ? $0 / total : nil },
                            simulatorCPUOverExcess: simShareOfExcess))
                }
            }
            say("provision: delay \(delay) ms done")
        }
    }

    /// Replays to every port at once through the engine (fresh connections: a new machine is a new
    /// connection); returns the wall time until the last one finished.
    private func provisionEngine(_ engine: Engine, _ page: CompiledPage, ports: [Int]) async throws -> Duration {
        let limits = DeviceLimits()
        let targets = ports.map { port -> DeviceTarget in
            let endpoint = Endpoint.tcp(host: "127.0.0.1", port: port)
            return DeviceTarget(
                deviceId: nil, endpoint: endpoint, unit: 1, limits: limits,
                connection: ModbusConnection(endpoint: endpoint, options: LinkOptions(limits)))
        }
        let start = ContinuousClock.now
        let statuses = await withTaskGroup(of: String.self) { group in
            for target in targets {
                group.addTask {
                    do {
                        return try await engine.apply(page: page, to: target, options: ReplayOptions(), who: "bench").status
                            .rawValue
                    } catch {
                        return "\(error)"
                    }
                }
            }
            var all: [String] = []
            for await s in group { all.append(s) }
            return all
        }
        let elapsed = ContinuousClock.now - start
        for target in targets { await target.connection.close() }
        guard statuses.allSatisfy({ $0 == "succeeded" }) else {
            throw BenchError("engine provisioning of \(ports.count): \(statuses.filter { $0 != "succeeded" }.prefix(3))")
        }
        return elapsed
    }

    /// Replays to every port at once through the daemon API, one thread and one request per machine; returns
    /// the wall time until the last answer was received. The answers are decoded and checked after that:
    /// decoding 32 reports (≈ 150 KB of JSON each, with Foundation's parser) is this client's CPU, and while
    /// timed it took the daemon's cores (as the wire suite's API column, the exchanges alone are timed).
    /// `devices`: configured device ids, one per port (nil: ad-hoc endpoints).
    private func provisionAPI(_ daemon: DaemonProcess, page: String, ports: [Int], devices: [String]? = nil) throws
        -> Duration
    {
        let failures = LockedList()
        let answers = LockedAnswers()
        let group = DispatchGroup()
        let start = ContinuousClock.now
        for (i, port) in ports.enumerated() {
            group.enter()
            let device = devices?[i]
            let thread = Thread {
                do {
                    let (response, _) = try daemon.exchange(
                        "/v1/pages/\(page)/apply?wait=1", body: DaemonProcess.applyBody(device: device, port: port))
                    answers.append(port, response)
                } catch {
                    failures.append("\(error)")
                }
                group.leave()
            }
            thread.start()
        }
        guard group.wait(timeout: .now() + 600) == .success else {
            throw BenchError("API provisioning of \(ports.count) machines took over 600 s")
        }
        let elapsed = ContinuousClock.now - start
        for (port, response) in answers.items {
            do {
                _ = try daemon.appliedRequests(response, page: page, to: "port \(port)")
            } catch {
                failures.append("\(error)")
            }
        }
        let failed = failures.items
        guard failed.isEmpty else { throw BenchError("API provisioning of \(ports.count): \(failed.prefix(3))") }
        return elapsed
    }
}

extension Bench {
    /// The configured ids of the layered daemon's machines.
    static func layeredIds(_ n: Int) -> [String] { (0..<n).map { "m\($0)" } }

    /// A daemon whose config has the machines as devices `m0`… with overrides: each its own value of three
    /// registers, half of them a group's value of a fourth, a tolerance on a fifth; the template captured.
    func layeredDaemon(page: BenchPage, reference: Int, ports: [Int], delay: Int) throws -> DaemonProcess {
        let ids = Self.layeredIds(ports.count)
        let r = { (k: Int) in "\"\(page.id).r\(page.registers[k].address)\"" }
        var values = ["\"half\":{\(r(3)):7}"]
        for (i, id) in ids.enumerated() {
            values.append("\"\(id)\":{\(r(0)):\(1000 + i),\(r(1)):\(2000 + i),\(r(2)):\(3000 + i)}")
        }
        let overrides =
            "{\"groups\":{\"half\":[" + ids.prefix(ids.count / 2).map { "\"\($0)\"" }.joined(separator: ",") + "]},"
            + "\"values\":{" + values.joined(separator: ",") + "},\"tolerances\":{\(r(4)):{\"absolute\":1}}}"
        let path = "\(temp)/provision-layered-d\(delay).json"
        try BenchConfig.write(
            path: path, pages: [page],
            devices: [BenchConfig.Device(id: "reference", port: reference, pages: [page.id])]
                + zip(ids, ports).map { BenchConfig.Device(id: $0, port: $1, pages: [page.id]) },
            socketConnectionsPerUser: Self.provisionCounts.max()!, overrides: overrides)
        let daemon = try DaemonProcess(
            executable: tool("lastsetd"), config: path, directory: "\(temp)/prov-layered-d\(delay)",
            name: "lastsetd-prov-layered-d\(delay)", logDirectory: temp)
        _ = try daemon.capture(page: page.id, device: "reference")
        return daemon
    }
}

/// A list appended to from several threads.
final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    /// Appends one item.
    func append(_ item: String) { lock.withLock { list.append(item) } }
    /// The items so far.
    var items: [String] { lock.withLock { list } }
}

/// Answers received from several threads.
final class LockedAnswers: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [(Int, HTTPClientResponse)] = []
    /// Appends one answer.
    func append(_ port: Int, _ response: HTTPClientResponse) { lock.withLock { list.append((port, response)) } }
    /// The answers so far.
    var items: [(Int, HTTPClientResponse)] { lock.withLock { list } }
}
