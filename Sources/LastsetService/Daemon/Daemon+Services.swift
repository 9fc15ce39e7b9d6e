import Foundation
import LastsetCore
import LastsetEngine
import LastsetHTTP
import LastsetSystem

extension Daemon {
    /// The daemon's services in start order; the group stops them in reverse. Up first, down last: the records, the
    /// device connections, the HTTP listeners and the watchdog (which checks them); then the background work (audit
    /// retention, fleet sync), the jobs and polling; then the signals and, last, READY=1 — so at a stop STOPPING=1
    /// goes out first, polling stops (no restore starts after it), the jobs get their deadline to reach a clean stop,
    /// and the records close after everything else.
    static func services(_ start: DaemonStart, _ options: DaemonOptions, log: Logger) async throws -> [any Service] {
        let config = start.config
        let engine = start.engine
        let listener = try AccessRules.listener(config.api?.tcp)
        let registry = DeviceRegistry(config: config)
        let events = EventHub()
        let jobs = JobTable(events: events)
        let deviceJobs = DeviceJobs(registry: registry, jobs: jobs, engine: engine)
        let watch = MachineWatch(
            machines: engine.machines, deviceState: engine.deviceState, deviceJobs: deviceJobs, log: log, events: events)
        let poller = Poller(registry: registry, deviceState: engine.deviceState, watch: watch, events: events, log: log)
        let notifier = SystemdNotifier()
        let reloader = ConfigReloader(
            configPath: options.configPath, dataDirectory: start.dataDirectory, registry: registry, poller: poller,
            notifier: notifier, log: log)
        if let fleet = start.fleet { await reloader.setFleet(fleet) }
        let router = try await router(
            start, registry: registry, jobs: jobs, events: events, reloader: reloader, options, log: log)
        let socketPath =
            options.socketPath ?? config.api?.socket
            ?? ProcessInfo.processInfo.environment["RUNTIME_DIRECTORY"].flatMap {
                $0.split(separator: ":").first.map { "\($0)/api.sock" }
            } ?? APIConfig.defaultSocket
        let server = try httpServer(config, socketPath: socketPath, listener: listener, router: router, log: log)
        let selfCheck = SelfCheck(
            timeout: notifier.watchdogInterval ?? .seconds(5), serving: { server.isServing },
            health: { _ = await router.health() })
        poller.replace(config: config)
        var services: [any Service] = [
            StartStopService(name: "records", stop: { await closeRecords(engine, jobs: jobs, log: log) }),
            StartStopService(name: "device connections", stop: { await registry.closeAll() }),
            StartStopService(
                name: "HTTP listeners",
                start: {
                    try server.start()
                    log.info(
                        "lastsetd \(version): \(config.devices.count) devices, \(config.pages.count) pages; data in \(start.dataDirectory.path); API on \(socketPath)"
                            + (listener.map {
                                " and \($0.1 == nil ? "http" : "https")://\(HostPort(host: $0.0.host, port: String(server.tcpPort ?? $0.0.port)))/"
                            } ?? ""))
                }, stop: { server.stop() }),
            // Stopped before the listeners: every events stream ends, and no new one is opened.
            StartStopService(name: "events", stop: { events.close() }),
            SystemdWatchdog(notifier: notifier, selfCheck: selfCheck, log: log),
            AuditRetentionLoop(retention: AuditRetention(database: engine.database), registry: registry, log: log),
            AuditChainCheck(audit: engine.audit, fleet: start.fleet, log: log),
        ]
        if let fleet = start.fleet { services.append(FleetSyncLoop(fleet: fleet, log: log)) }
        services += [
            // The jobs stop after the poller: a restore a poll starts (a `replacement` policy) is drained with the rest.
            StartStopService(name: "jobs", stop: { await stopJobs(jobs, router: router, log: log) }),
            poller,
            // Stopped before the poller and the jobs: no backup starts after it; one running is drained with the jobs.
            BackupLoop(registry: registry, deviceJobs: deviceJobs, log: log),
            SignalHandling(reloader: reloader, log: log),
            StartStopService(
                name: "systemd notifications",
                start: {
                    try? notifier.ready()
                    try? notifier.status("serving \(config.devices.count) devices")
                }, stop: { try? notifier.stopping() }),
        ]
        return services
    }

    /// The API's router; its tokens and roles are rebuilt on every reload (a token removed from the config stops
    /// working at once), the listener and TLS stay as started.
    private static func router(
        _ start: DaemonStart, registry: DeviceRegistry, jobs: JobTable, events: EventHub, reloader: ConfigReloader,
        _ options: DaemonOptions, log: Logger
    ) async throws -> APIRouter {
        let sessions = SessionStore()
        let auth = try AccessRules.auth(start.config.api, sessions: sessions)
        let startedAt = Date()
        let configPath = options.configPath
        let dataDirectory = start.dataDirectory
        let router = APIRouter(
            registry: registry, jobs: jobs, engine: start.engine, auth: auth, fleet: start.fleet, events: events,
            fleetLog: { log.warning($0) }, errorLog: { log.error($0) }, reload: { await reloader.reload() }
        ) {
            HealthInfo(
                status: .ok, version: version, startedAt: startedAt, configFile: configPath, dataDirectory: dataDirectory.path,
                devices: await registry.config.devices.count, pages: await registry.config.pages.count,
                runningJobs: await jobs.runningCount, auditChainBroken: try? await start.engine.audit.chainBroken())
        }
        let startedListen = start.config.api?.tcp
        let startedAPI = start.config.api
        await reloader.setAccessRules { next in
            let nextAuth = try AccessRules.auth(next.api, sessions: sessions)
            if next.api?.tcp?.listen != startedListen?.listen || next.api?.tcp?.tls != startedListen?.tls {
                log.warning("api.tcp listen/tls changes take effect at the next restart; tokens and roles are reloaded")
            }
            let (was, now) = (startedAPI ?? APIConfig(), next.api ?? APIConfig())
            if now.connectionsPerUser != was.connectionsPerUser || now.requestTimeoutDuration != was.requestTimeoutDuration {
                log.warning("api.socketConnectionsPerUser and api.requestTimeout changes take effect at the next restart")
            }
            return { router.replaceAuth(nextAuth) }
        }
        return router
    }

    /// The HTTP server on the Unix socket (and TCP when configured), made but not yet listening.
    private static func httpServer(
        _ config: CompiledConfig, socketPath: String,
        listener: (HTTPServerConfiguration.TCPListener, HTTPServerConfiguration.TLSMaterial?)?, router: APIRouter, log: Logger
    ) throws -> HTTPServer {
        try? FileManager.default.createDirectory(
            atPath: (socketPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        var configuration = HTTPServerConfiguration(
            unixSocketPath: socketPath, tcp: listener?.0, tls: listener?.1,
            connectionLimit: SocketConnectionLimits.listenerLimit,
            socketConnectionsPerUser: config.api?.connectionsPerUser ?? SocketConnectionLimits.defaultPerUser,
            requestTimeout: config.api?.requestTimeoutDuration ?? APIConfig.defaultRequestTimeout)
        configuration.uploadLimit = APIRouter.uploadLimit
        configuration.notice = { notice in notice.isWarning ? log.warning("\(notice)") : log.debug("\(notice)") }
        return try HTTPServer(configuration: configuration, handler: { request in await router.handle(request) })
    }

    /// Stops the jobs: no new one is accepted, the running ones are asked to reach a clean stop point and given
    /// `shutdownDeadline` to get there; each one's stop is logged.
    private static func stopJobs(_ jobs: JobTable, router: APIRouter, log: Logger) async {
        router.stopAccepting()
        let running = Set(await jobs.list().filter { $0.state == .running }.map(\.id))
        if !running.isEmpty { log.info("letting \(running.count) running job(s) reach a clean stop point") }
        await jobs.cancelAll()
        let left = await jobs.drain(deadline: shutdownDeadline)
        if left > 0 { log.warning("\(left) job(s) still running at the shutdown deadline") }
        for job in await jobs.list() where running.contains(job.id) && job.replay?.stoppedAt != nil {
            log.info("job \(job.id) (\(job.kind) \(job.pageId) → \(job.device)) stopped \(job.replay!.stoppedAt!)")
        }
    }

    /// The WAL folded into lastset.db (a clean stop leaves one file); with a job still running past the deadline it
    /// stays open: every commit made is in the WAL already and is replayed at the next open.
    private static func closeRecords(_ engine: Engine, jobs: JobTable, log: Logger) async {
        guard await jobs.runningCount == 0, let failure = engine.close() else { return }
        log.warning("\(failure): the write-ahead log stays beside \(RecordStore.fileName) and is read at the next start")
    }
}
