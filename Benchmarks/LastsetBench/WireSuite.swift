import Foundation
import LastsetCore
import LastsetEngine
import ModbusLink

/// The side-by-side comparison: capture and replay of each page size through Lastset (engine, engine
/// core, daemon API), the C libmodbus loop, pymodbus and the per-register approach, on the same
/// simulator, interleaved and repeated.
extension Bench {
    /// Implementations compared, in the order of the first repetition (rotated afterwards).
    static let implementations = [
        "lastset-engine", "lastset-core", "lastset-api", "c", "c-durable", "c-durable-min", "pymodbus", "per-register",
    ]

    /// The implementations this run compares (`--impls`, else all), in `implementations` order.
    var selected: [String] {
        guard let chosen = options.impls else { return Self.implementations }
        return Self.implementations.filter { chosen.contains($0) }
    }

    /// One simulator and everything needed to run both operations against it.
    private struct Slot {
        var delayMs: Int
        var page: BenchPage
        var definition: CompiledPage
        var port: Int
        var deviceId: String
        var target: DeviceTarget
        var template: Template?
        /// Reads of at most 125 registers, registers unsplit (the baselines' capture plan).
        var readPlan: [(address: Int, count: Int)] { page.chunks(max: 125) }
        /// Lastset's replay as requests (snapshot, windows, final pass): the baselines' replay plan.
        var replayOps: [BenchOp] = []
        /// Bytes of the template file Lastset archives for this page (the durable baselines write as many for a
        /// capture, and as a replay's intent).
        var templateBytes = 0
        /// Bytes of Lastset's record of a replay's outcome (before and after of every register), measured in the
        /// engine's database: what the durable minimum appends after a replay's read-back.
        var outcomeBytes = 0
    }

    func wireSuite() async throws {
        let pages = options.sizes.map { BenchPage.contiguous(id: "p\($0)", words: $0) }
        let simConfig = "\(temp)/wire-pages.json"
        try BenchConfig.write(path: simConfig, pages: pages, devices: [])
        var slots: [Slot] = []
        let pool = ConnectionPool()
        var devices: [BenchConfig.Device] = []
        var sims: [(Int, BenchPage, Int)] = []
        for delay in options.delays {
            for page in pages {
                let values = try file("values-\(page.id).json", page.valuesJSON)
                let sim = try SimServer(
                    executable: tool("lastset-sim"), config: simConfig, page: page.id, values: values, delayMs: delay,
                    name: "sim-wire-d\(delay)-\(page.id)", logDirectory: temp)
                onExit { sim.stop() }
                sims.append((delay, page, sim.port))
                devices.append(BenchConfig.Device(id: "d\(delay)-\(page.id)", port: sim.port, pages: [page.id]))
            }
        }
        let daemonConfig = "\(temp)/wire-daemon.json"
        try BenchConfig.write(path: daemonConfig, pages: pages, devices: devices)
        let config = try load(daemonConfig)
        for (delay, page, port) in sims {
            guard let definition = config.page(page.id) else { throw BenchError("page \(page.id) missing from \(daemonConfig)") }
            let endpoint = Endpoint.tcp(host: "127.0.0.1", port: port)
            let limits = DeviceLimits()
            let connection = await pool.connection(for: endpoint, options: LinkOptions(limits)).connection
            let target = DeviceTarget(
                deviceId: "d\(delay)-\(page.id)", endpoint: endpoint, unit: 1, limits: limits, connection: connection)
            slots.append(
                Slot(
                    delayMs: delay, page: page, definition: definition, port: port, deviceId: "d\(delay)-\(page.id)",
                    target: target, replayOps: BenchOp.replay(of: definition, limits: limits).ops))
        }
        say("wire: \(slots.count) simulators up; starting lastsetd and the C and pymodbus workers")
        let daemon = try DaemonProcess(
            executable: tool("lastsetd"), config: daemonConfig, directory: "\(temp)/wire-daemon", name: "lastsetd-wire",
            logDirectory: temp)
        onExit { daemon.stop() }
        let engine = try Engine(dataDirectory: URL(fileURLWithPath: "\(temp)/engine-data"), historyLimit: 5)
        let c = try Worker(name: "c", executable: options.cWorker, arguments: [], logDirectory: temp)
        onExit { c.stop() }
        let py = try Worker(
            name: "pymodbus", executable: options.python, arguments: ["-u", options.pythonScript], logDirectory: temp)
        onExit { py.stop() }

        // Warm-up (untimed): connects every client, archives a first template everywhere, checks results.
        for i in slots.indices {
            let s = slots[i]
            _ = try await run("lastset-engine", "capture", s, engine: engine, daemon: daemon, c: c, py: py)
            let template = try await engine.archive.load(pageId: s.page.id)
            slots[i].template = template
            slots[i].templateBytes = try await templateFileBytes(page: s.page.id, engine: engine)
            _ = try await run("lastset-engine", "replay", s, engine: engine, daemon: daemon, c: c, py: py)
            slots[i].outcomeBytes = try replayOutcomeBytes(page: s.page.id)
            say(
                "wire: \(s.page.id) at \(s.delayMs) ms: template \(slots[i].templateBytes) bytes, replay outcome record \(slots[i].outcomeBytes) bytes (the durable minimum's records)"
            )
            for impl in selected where impl != "per-register" {
                for op in ["capture", "replay"] where op == "capture" || impl != "c-durable" {
                    _ = try await run(impl, op, slots[i], engine: engine, daemon: daemon, c: c, py: py)
                }
            }
        }
        say("wire: warm-up done")

        var samples: [String: (Samples, Int)] = [:]
        // CPU time per operation of the process doing it: this one for the core and the engine (user +
        // system), lastsetd for the API, the worker for C and pymodbus (their threads' run time). Steadier
        // than the wall clock on a shared machine; it leaves out the simulator's share and time waiting on
        // the disk. The per-register runs share the pymodbus worker with nothing to compare: not measured.
        var cpu: [String: Samples] = [:]
        func cpuClock(_ impl: String) -> Duration? {
            switch impl {
            case "lastset-core", "lastset-engine": Self.processCPU()
            case "lastset-api": ProcStats.runtime(pid: daemon.pid)
            case "c", "c-durable", "c-durable-min": ProcStats.runtime(pid: c.pid)
            case "pymodbus": ProcStats.runtime(pid: py.pid)
            default: nil
            }
        }
        let maxReps = slots.map { options.repetitions(delayMs: $0.delayMs, words: $0.page.words, perRegister: false) }.max() ?? 0
        for rep in 0..<maxReps {
            for s in slots {
                let impls = selected
                let n = impls.count
                let order = (0..<n).map { impls[($0 + rep) % n] }
                for op in ["capture", "replay"] {
                    for impl in order where op == "capture" || impl != "c-durable" {
                        let reps = options.repetitions(
                            delayMs: s.delayMs, words: s.page.words, perRegister: impl == "per-register")
                        guard rep < reps else { continue }
                        let cpuBefore = cpuClock(impl)
                        let (elapsed, requests) = try await run(impl, op, s, engine: engine, daemon: daemon, c: c, py: py)
                        let key = "\(s.delayMs)|\(s.page.words)|\(op)|\(impl)"
                        if let cpuBefore, let cpuAfter = cpuClock(impl) { cpu[key, default: Samples()].add(cpuAfter - cpuBefore) }
                        var entry = samples[key] ?? (Samples(), requests)
                        entry.0.add(elapsed)
                        entry.1 = requests
                        samples[key] = entry
                    }
                }
            }
            say("wire: repetition \(rep + 1)/\(maxReps) done")
        }
        try await countFsyncs(slots: slots, daemon: daemon, c: c)
        for (key, c) in cpu.sorted(by: { $0.key < $1.key }) where key.hasSuffix("|lastset-core") {
            say(
                "wire: lastset-core CPU \(key): median \(String(format: "%.3f", c.median)) ms [\(String(format: "%.3f", c.min))–\(String(format: "%.3f", c.max))]"
            )
        }
        let daemonStats = try? daemon.stats()
        wireDaemonPeakRSS = daemonStats?.peakRSSKiB
        wireDaemonRSS = daemonStats?.rssKiB
        wireDaemonAnon = daemonStats?.anonKiB

        for s in slots {
            for op in ["capture", "replay"] {
                func median(_ impl: String) -> Double? {
                    samples["\(s.delayMs)|\(s.page.words)|\(op)|\(impl)"].map { $0.0.median }
                }
                for impl in selected {
                    guard let (sample, requests) = samples["\(s.delayMs)|\(s.page.words)|\(op)|\(impl)"] else { continue }
                    report.wire.append(
                        BenchReport.WireResult(
                            delayMs: s.delayMs, registers: s.page.words, operation: op, impl: impl, medianMs: sample.median,
                            minMs: sample.min, maxMs: sample.max, runs: sample.runsMs.count, requests: requests,
                            cpuMs: cpu["\(s.delayMs)|\(s.page.words)|\(op)|\(impl)"]?.median))
                }
                func over(_ a: String, _ b: String) -> Double? {
                    guard let x = median(a), let y = median(b), y > 0 else { return nil }
                    return x / y
                }
                func cpuOver(_ a: String, _ b: String) -> Double? {
                    let key = "\(s.delayMs)|\(s.page.words)|\(op)|"
                    guard let x = cpu[key + a]?.median, let y = cpu[key + b]?.median, y > 0 else { return nil }
                    return x / y
                }
                report.ratios.append(
                    BenchReport.Ratio(
                        delayMs: s.delayMs, registers: s.page.words, operation: op, lastsetOverC: over("lastset-engine", "c"),
                        lastsetCoreOverC: over("lastset-core", "c"), apiOverC: over("lastset-api", "c"),
                        lastsetOverDurableC: over("lastset-engine", "c-durable"),
                        lastsetOverPymodbus: over("lastset-engine", "pymodbus"),
                        lastsetOverPerRegister: over("lastset-engine", "per-register"),
                        apiOverCDurableMin: over("lastset-api", "c-durable-min"),
                        lastsetOverCDurableMin: over("lastset-engine", "c-durable-min"),
                        lastsetdCpuOverCCpu: cpuOver("lastset-api", "c-durable-min"),
                        lastsetdCpuOverPlainCCpu: cpuOver("lastset-api", "c")))
            }
        }
    }

    /// User + system CPU time of this process so far.
    static func processCPU() -> Duration {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return .seconds(t.tv_sec) + .nanoseconds(t.tv_nsec)
    }

    /// Size of the newest template file the engine archived for `page` (as `export` writes it: the row's bytes).
    private func templateFileBytes(page: String, engine: Engine) async throws -> Int {
        let data = try await engine.archive.exportData(pageId: page)
        try FileManager.default.createDirectory(atPath: "\(temp)/c-durable", withIntermediateDirectories: true)
        return data.count
    }

    /// Bytes of the record of the newest successful replay of `page` in the engine's database (its audit
    /// outcome: before and after of every register), read with the sqlite3 shell.
    private func replayOutcomeBytes(page: String) throws -> Int {
        let database = "\(temp)/engine-data/lastset.db"
        let query =
            "SELECT length(record) FROM audit_record WHERE kind = 'replay' AND result = 'succeeded' AND page_id = '\(page)' ORDER BY seq DESC LIMIT 1;"
        let output = try ChildProcess.output(of: "/usr/bin/sqlite3", ["-readonly", database, query])
        guard let bytes = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)), bytes > 0 else {
            throw BenchError("no replay outcome record of \(page) in \(database): sqlite3 printed \"\(output)\"")
        }
        return bytes
    }

    /// Counts, with strace attached to the process doing it, the fsyncs of one capture and one replay of every
    /// page at the first delay: lastsetd through the API, and the C durable minimum. Untimed (strace slows
    /// every call it traces).
    private func countFsyncs(slots: [Slot], daemon: DaemonProcess, c: Worker) async throws {
        guard let delay = slots.first?.delayMs else { return }
        for s in slots where s.delayMs == delay {
            for impl in ["lastset-api", "c-durable-min"] where selected.contains(impl) {
                for op in ["capture", "replay"] {
                    if impl == "lastset-api" && op == "capture" { try await changeFirstRegister(of: s.definition, on: s.target) }
                    let pid = impl == "lastset-api" ? daemon.pid : c.pid
                    let calls = try FsyncTrace.count(pid: pid, trace: "\(temp)/fsyncs-\(impl)-\(op)-\(s.page.id).trace") {
                        switch (impl, op) {
                        case ("lastset-api", "capture"): _ = try daemon.capture(page: s.page.id, device: s.deviceId)
                        case ("lastset-api", _): _ = try daemon.apply(page: s.page.id, device: s.deviceId)
                        case (_, "capture"):
                            _ = try c.run("readplan", port: s.port, plan: s.readPlan, log: (minimumLog, s.templateBytes))
                        default:
                            _ = try c.runWindows(
                                port: s.port, ops: s.replayOps, log: (minimumLog, s.templateBytes, s.outcomeBytes))
                        }
                    }
                    report.fsyncs.append(
                        BenchReport.FsyncCount(
                            registers: s.page.words, operation: op, impl: impl, fsyncs: calls.count,
                            calls: calls.map { String($0.prefix(60)) }))
                    say("wire: fsyncs of one \(op) of \(s.page.id) by \(impl): \(calls.count)")
                }
            }
        }
    }

    /// The durable minimum's one log file (as Lastset's records are one database).
    private var minimumLog: String { "\(temp)/c-durable-min.log" }

    /// Runs one operation with one implementation; returns the time and the requests it sent.
    private func run(_ impl: String, _ op: String, _ s: Slot, engine: Engine, daemon: DaemonProcess, c: Worker, py: Worker)
        async throws -> (Duration, Int)
    {
        let clock = ContinuousClock()
        let capture = op == "capture"
        switch impl {
        case "lastset-engine", "lastset-core":
            if capture && impl == "lastset-engine" { try await changeFirstRegister(of: s.definition, on: s.target) }
            let before = await s.target.connection.counters
            let start = clock.now
            if capture {
                if impl == "lastset-engine" {
                    let r = await engine.capture(page: s.definition, from: s.target, who: "bench")
                    guard r.archived else {
                        throw BenchError(
                            "engine capture of \(s.page.id) did not archive: \(r.problems.prefix(3)) \(r.error ?? "")")
                    }
                } else {
                    let r = await LiveReader.read(page: s.definition, from: s.target)
                    if let e = r.error { throw BenchError("LiveReader of \(s.page.id): \(e)") }
                }
            } else {
                let status: ReplayStatus
                if impl == "lastset-engine" {
                    status = try await engine.apply(page: s.definition, to: s.target, options: ReplayOptions(), who: "bench")
                        .status
                } else {
                    guard let template = s.template else { throw BenchError("no template of \(s.page.id) loaded") }
                    status = await Replay.run(page: s.definition, template: template, to: s.target).report.status
                }
                guard status == .succeeded else { throw BenchError("\(impl) replay of \(s.page.id) ended \(status)") }
            }
            let elapsed = clock.now - start
            let after = await s.target.connection.counters
            return (elapsed, after.total - before.total)
        case "lastset-api":
            if capture { try await changeFirstRegister(of: s.definition, on: s.target) }
            let (requests, exchange) =
                capture
                ? try daemon.capture(page: s.page.id, device: s.deviceId) : try daemon.apply(page: s.page.id, device: s.deviceId)
            return (exchange, requests)
        case "c", "pymodbus":
            // The same requests as Lastset's: the minimal read plan (no register split across two
            // requests); for a replay, that read first (Lastset reads the target's current values for
            // the report's and the audit log's "before"), then FC16 + read-back per write chunk.
            let worker = impl == "c" ? c : py
            if capture {
                let r = try worker.run("readplan", port: s.port, plan: s.readPlan)
                return (r.elapsed, r.requests)
            }
            let r = try worker.runWindows(port: s.port, ops: s.replayOps)
            return (r.elapsed, r.requests)
        case "c-durable":
            // The C capture plus the durable write Lastset's archive does (temp file, fsync, rename,
            // fsync directory) of a file as large as Lastset's template: the fair baseline for small pages.
            let r = try c.run("readplan", port: s.port, plan: s.readPlan)
            let write = try c.durableWrite(path: "\(temp)/c-durable/\(s.page.id)-d\(s.delayMs).json", bytes: s.templateBytes)
            return (r.elapsed + write, r.requests)
        case "c-durable-min":
            // The C loop plus exactly the fsyncs the promises need, records appended to one file: a capture's
            // version and audit record together (one fdatasync); a replay's intent before the first frame
            // and its outcome with the device state after the read-back (two).
            if capture {
                let r = try c.run("readplan", port: s.port, plan: s.readPlan, log: (minimumLog, s.templateBytes))
                return (r.elapsed, r.requests)
            }
            let r = try c.runWindows(port: s.port, ops: s.replayOps, log: (minimumLog, s.templateBytes, s.outcomeBytes))
            return (r.elapsed, r.requests)
        case "per-register":
            let r = try c.run(
                capture ? "perreg-read" : "perreg-replay", port: s.port, start: s.page.start, count: s.page.words,
                timeout: .seconds(600))
            return (r.elapsed, r.requests)
        default:
            throw BenchError("unknown implementation \"\(impl)\"")
        }
    }
}
