import Foundation
import LastsetCore
import LastsetEngine
import LastsetFleet
import LastsetHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// `lastsetd`: loads the config, opens the archive, serves the API, polls devices, and talks to
/// systemd; SIGHUP reloads the config, SIGTERM/SIGINT stop it cleanly.
public enum Daemon {
    /// Version reported by `--version` and `/v1/health`.
    public static let version = "0.1.0"

    /// How long running jobs get to reach a clean stop point on shutdown.
    static let shutdownDeadline: Duration = .seconds(10)

    /// Unblocks SIGTERM, SIGINT and SIGHUP on the calling (main) thread, before any other thread starts.
    /// A parent may have spawned us with them blocked (threads of Swift concurrency and Dispatch block
    /// them, and children inherit the mask); the signal sources then would never fire.
    public static func unblockSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for s in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Runs the daemon with the process's arguments; returns the exit code.
    public static func main(arguments: [String]) async -> Int32 {
        let options: DaemonOptions
        do {
            options = try DaemonOptions.parse(arguments)
        } catch {
            writeStderr("lastsetd: \(error)\nTry 'lastsetd --help'.\n")
            return 64
        }
        if options.showHelp {
            print(DaemonOptions.usage)
            return 0
        }
        if options.showVersion {
            print("lastsetd \(version)")
            return 0
        }
        MallocTuning.limitArenas()
        MallocTuning.mapLargeBlocks()
        if options.checkConfig {
            do {
                let config = try ConfigLoader.load(path: options.configPath)
                // The same rules as at start-up: what the daemon would refuse, the check refuses.
                do {
                    _ = try AccessRules.listener(config.api?.tcp)
                    _ = try AccessRules.auth(config.api, sessions: SessionStore())
                } catch {
                    writeStderr("\(options.configPath): api.tcp: \(error)\n")
                    return 1
                }
                print("\(options.configPath): OK (\(config.devices.count) devices, \(config.pages.count) pages)")
                return 0
            } catch {
                writeStderr(error.problems.map { "\($0)\n" }.joined())
                writeStderr("\(options.configPath): \(error.problems.count) problem\(error.problems.count == 1 ? "" : "s")\n")
                return 1
            }
        }
        let log = Logger(label: "lastsetd", level: options.logLevel)
        do {
            return try await serve(options, log: log)
        } catch {
            log.error("\(error)")
            return 1
        }
    }

    private static func writeStderr(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    private static func serve(_ options: DaemonOptions, log: Logger) async throws -> Int32 {
        let config: CompiledConfig
        do {
            config = try ConfigLoader.load(path: options.configPath)
        } catch {
            for p in error.problems { log.error("\(p)") }
            log.error("refusing to start: \(error.problems.count) problem(s) in \(options.configPath)")
            return 1
        }
        let dataDirectory = DataDirectory.resolve(explicit: options.dataDirectory)
        // Held until the process exits: a second daemon on the same directory is refused, saying who holds it.
        let directoryLock: DataDirectoryLock
        do {
            directoryLock = try DataDirectoryLock(directory: dataDirectory)
        } catch {
            log.error("refusing to start: \(error)")
            return 1
        }
        defer { withExtendedLifetime(directoryLock) {} }
        // A data directory that ever joined a fleet keeps its host's names (and refuses another name).
        let fleetSettings = config.source.fleet.map { FleetSettings($0) }
        let registeredHost = Fleet.registeredHost(dataDirectory: dataDirectory)
        if let s = fleetSettings, let registeredHost, registeredHost != s.host {
            log.error("refusing to start: \(FleetError.hostChanged(registered: registeredHost, configured: s.host))")
            return 1
        }
        let engine: Engine
        do {
            engine = try Engine(
                dataDirectory: dataDirectory, historyLimit: config.historyLimit, host: fleetSettings?.host ?? registeredHost)
        } catch {
            log.error("refusing to start: \(error)")
            return 1
        }
        if let note = engine.importNote { log.info(note) }
        var fleet: Fleet?
        if let fleetSettings {
            let f = Fleet(settings: fleetSettings, dataDirectory: dataDirectory, archive: engine.archive, audit: engine.audit)
            do {
                try await f.open()
            } catch {
                log.error("refusing to start: \(error)")
                return 1
            }
            fleet = f
            f.setPages(config.pages)
        }
        if let note = await engine.loadDeviceState() { log.warning(note) }
        // A replay the last run did not finish: recorded as interrupted, its device page unverified; never resumed.
        for r in await engine.recoverInterrupted() {
            log.warning("replay of \(r.pageId) to \(r.device) (job \(r.job ?? "?")) was \(r.message ?? "interrupted")")
        }
        for name in RecordBackup.removeLeftovers(dataDirectory: dataDirectory) {
            log.warning("removed \(name) from \(dataDirectory.path): a backup copy left by a daemon stopped while making it")
        }
        let registry = DeviceRegistry(config: config)
        let jobs = JobTable()
        let startedAt = Date()
        let env = ProcessInfo.processInfo.environment
        let socketPath =
            options.socketPath ?? config.api?.socket
            ?? env["RUNTIME_DIRECTORY"].flatMap { $0.split(separator: ":").first.map { "\($0)/api.sock" } }
            ?? APIConfig.defaultSocket

        let listener = try AccessRules.listener(config.api?.tcp)
        let tcp = listener?.0
        let sessions = SessionStore()
        let auth = try AccessRules.auth(config.api, sessions: sessions)
        let configPath = options.configPath
        let poller = Poller(registry: registry, deviceState: engine.deviceState, log: log)
        let notifier = SystemdNotifier()
        let reloader = ConfigReloader(
            configPath: configPath, registry: registry, poller: poller, notifier: notifier, log: log)
        if let fleet { await reloader.setFleet(fleet) }
        let router = APIRouter(
            registry: registry, jobs: jobs, engine: engine, auth: auth, fleet: fleet, fleetLog: { log.warning($0) },
            errorLog: { log.error($0) },
            reload: { await reloader.reload() }
        ) {
            HealthInfo(
                status: .ok, version: version, startedAt: startedAt, configFile: configPath, dataDirectory: dataDirectory.path,
                devices: await registry.config.devices.count, pages: await registry.config.pages.count,
                runningJobs: await jobs.runningCount)
        }
        // Tokens and roles are rebuilt on every reload (a token removed from the config stops working at once);
        // the listener and TLS stay as started.
        let startedListen = config.api?.tcp
        let startedAPI = config.api
        await reloader.setAccessRules { next in
            let nextAuth = try AccessRules.auth(next.api, sessions: sessions)
            if next.api?.tcp?.listen != startedListen?.listen || next.api?.tcp?.tls != startedListen?.tls {
                log.warning("api.tcp listen/tls changes take effect at the next restart; tokens and roles are reloaded")
            }
            let (was, now) = (startedAPI ?? APIConfig(), next.api ?? APIConfig())
            if now.connectionsPerUser != was.connectionsPerUser || now.requestTimeoutDuration != was.requestTimeoutDuration {
                log.warning(
                    "api.socketConnectionsPerUser and api.requestTimeout changes take effect at the next restart")
            }
            return { router.replaceAuth(nextAuth) }
        }
        try? FileManager.default.createDirectory(
            atPath: (socketPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        var httpConfiguration = HTTPServerConfiguration(
            unixSocketPath: socketPath, tcp: tcp, tls: listener?.1,
            connectionLimit: SocketConnectionLimits.listenerLimit,
            socketConnectionsPerUser: config.api?.connectionsPerUser ?? SocketConnectionLimits.defaultPerUser,
            requestTimeout: config.api?.requestTimeoutDuration ?? APIConfig.defaultRequestTimeout)
        httpConfiguration.uploadLimit = APIRouter.uploadLimit
        httpConfiguration.notice = { notice in notice.isWarning ? log.warning("\(notice)") : log.debug("\(notice)") }
        let server = try HTTPServer(configuration: httpConfiguration, handler: { request in await router.handle(request) })
        try server.start()
        log.info(
            "lastsetd \(version): \(config.devices.count) devices, \(config.pages.count) pages; data in \(dataDirectory.path); API on \(socketPath)"
                + (tcp.map { " and \(listener?.1 == nil ? "http" : "https")://\($0.host):\(server.tcpPort ?? $0.port)/" } ?? ""))

        // Before READY: a signal sent the moment we are ready must find its handler installed.
        let signals = SignalEvents.stream()
        poller.start(config: config)
        try? notifier.ready()
        try? notifier.status("serving \(config.devices.count) devices")
        let selfCheck = SelfCheck(
            timeout: notifier.watchdogInterval ?? .seconds(5), serving: { server.isServing },
            health: { _ = await router.health() })
        let watchdog = Task {
            await notifier.runWatchdog(
                check: { await selfCheck.run() },
                onCheck: { ok in
                    if ok {
                        log.info("the API answers its self-check again: watchdog pings resumed")
                    } else {
                        log.error(
                            "the daemon fails its self-check (its health is not computed within the watchdog interval, or the API listener is down): watchdog pings stopped"
                        )
                    }
                },
                onError: { log.warning("watchdog notification failed: \($0)") })
        }

        let syncing = fleet.map { fleet in
            Task {
                // At start, then every interval: what the hub has comes in, this host's work goes out.
                var lastResult: SyncResult?
                while !Task.isCancelled {
                    let report = await fleet.sync()
                    if report.result != .ok {
                        log.warning(
                            "fleet sync with \(fleet.settings.remote): \(report.result.rawValue): \(report.message ?? "")")
                    } else if lastResult != .ok || !report.templatesIn.isEmpty || report.commitsOut > 0 {
                        log.info(
                            "fleet sync: \(report.templatesIn.count) version(s) in, \(report.commitsOut) commit(s) out; ahead \(report.ahead ?? 0), behind \(report.behind ?? 0)"
                        )
                    }
                    lastResult = report.result
                    guard let interval = fleet.settings.interval else { break }
                    try? await Task.sleep(for: interval)
                }
            }
        }

        // Audit retention: at start, then every `audit.interval` (as the config says at that moment), off any job's path.
        let retention = AuditRetention(database: engine.database)
        let pruning = Task {
            while !Task.isCancelled {
                let policy = await registry.config.source.audit
                if let policy, policy.prunes {
                    await Self.runRetention(retention, policy, log: log)
                }
                try? await Task.sleep(for: policy?.intervalDuration ?? AuditConfig.defaultInterval)
            }
        }

        for await signal in signals {
            if signal == .hangup {
                _ = await reloader.reload()
                continue
            }
            log.info("\(signal): stopping")
            break
        }

        try? notifier.stopping()
        router.stopAccepting()
        poller.stop()
        let running = Set(await jobs.list().filter { $0.state == .running }.map(\.id))
        if !running.isEmpty { log.info("letting \(running.count) running job(s) reach a clean stop point") }
        await jobs.cancelAll()
        let left = await jobs.drain(deadline: shutdownDeadline)
        if left > 0 { log.warning("\(left) job(s) still running at the shutdown deadline") }
        for job in await jobs.list() where running.contains(job.id) && job.replay?.stoppedAt != nil {
            log.info("job \(job.id) (\(job.kind) \(job.pageId) → \(job.device)) stopped \(job.replay!.stoppedAt!)")
        }
        server.stop()
        syncing?.cancel()
        pruning.cancel()
        await pruning.value
        watchdog.cancel()
        await registry.closeAll()
        // The WAL folded into lastset.db (a clean stop leaves one file); with a job still running past the
        // deadline it stays open: every commit made is in the WAL already and is replayed at the next open.
        if left == 0, let failure = engine.close() {
            log.warning("\(failure): the write-ahead log stays beside \(RecordStore.fileName) and is read at the next start")
        }
        log.info("stopped")
        return 0
    }
}

extension Daemon {
    /// One run of audit retention, its effect logged (each file, each redone file; a failure as an error).
    static func runRetention(_ retention: AuditRetention, _ policy: AuditConfig, log: Logger) async {
        do {
            let report = try await retention.run(policy)
            for name in report.partialsRemoved {
                log.warning("audit retention: removed \(AuditRetention.directoryName)/\(name), left by a run stopped while writing it")
            }
            for name in report.redone {
                log.warning(
                    "audit retention: \(AuditRetention.directoryName)/\(name) was written by a run whose removal never committed (its records are all still in \(RecordStore.fileName)): removed, its records exported again"
                )
            }
            for f in report.files {
                log.info(
                    "audit retention: exported \(f.records) record\(f.records == 1 ? "" : "s") to \(retention.directory)/\(f.name) (\(f.bytes) bytes), then removed them from \(RecordStore.fileName)"
                )
            }
            if report.files.isEmpty { log.debug("audit retention: no record past the bound") }
        } catch {
            log.error("audit retention failed, no record was removed that is not in a file of \(retention.directory): \(error)")
        }
    }
}

/// A reason the daemon cannot start.
struct DaemonError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
