import Foundation
import LastsetCore
import LastsetEngine
import LastsetFleet

/// What the daemon opens before its services start, each step refusing the start with its reason: the config, the
/// data directory's lock, the records (`Engine`), the fleet repository; then the records left by the last run are
/// settled (device state loaded, unfinished replays recorded as interrupted, backup copies removed).
struct DaemonStart {
    let config: CompiledConfig
    let dataDirectory: URL
    /// Held until the process exits: a second daemon on the same directory is refused, saying who holds it.
    let directoryLock: DataDirectoryLock
    let engine: Engine
    let fleet: Fleet?

    /// Opens everything for `options`, or logs why the daemon refuses to start and returns nil.
    static func open(_ options: DaemonOptions, log: Logger) async -> DaemonStart? {
        let config: CompiledConfig
        let dataDirectory = DataDirectory.resolve(explicit: options.dataDirectory)
        do {
            // The config file, with the page definitions this host took from its fleet in place of its own.
            let (loaded, notes) = try TakenDefinitions.load(path: options.configPath, dataDirectory: dataDirectory)
            config = loaded
            for note in notes { log.info(note) }
        } catch {
            for p in error.problems { log.error("\(p)") }
            log.error("refusing to start: \(error.problems.count) problem(s) in \(options.configPath)")
            return nil
        }
        do {
            let start = try await open(config, dataDirectory: dataDirectory, log: log)
            await start.settleLastRun(log: log)
            return start
        } catch {
            log.error("refusing to start: \(error)")
            return nil
        }
    }

    private static func open(_ config: CompiledConfig, dataDirectory: URL, log: Logger) async throws -> DaemonStart {
        let directoryLock = try DataDirectoryLock(directory: dataDirectory)
        // A data directory that ever joined a fleet keeps its host's names (and refuses another name).
        let fleetSettings = config.source.fleet.map { FleetSettings($0) }
        let registeredHost = try Fleet.registeredHost(dataDirectory: dataDirectory)
        if let s = fleetSettings, let registeredHost, registeredHost != s.host {
            throw FleetError.hostChanged(registered: registeredHost, configured: s.host)
        }
        let engine = try Engine(
            dataDirectory: dataDirectory, historyLimit: config.historyLimit, host: fleetSettings?.host ?? registeredHost)
        if let note = engine.importNote { log.info(note) }
        var fleet: Fleet?
        if let fleetSettings {
            let f = Fleet(settings: fleetSettings, dataDirectory: dataDirectory, archive: engine.archive, audit: engine.audit)
            try await f.open()
            fleet = f
            f.setPages(config.pages)
        }
        return DaemonStart(
            config: config, dataDirectory: dataDirectory, directoryLock: directoryLock, engine: engine, fleet: fleet)
    }

    /// Loads the device state and settles what the last run left: a replay it did not finish is recorded as
    /// interrupted, its device page unverified (never resumed); a backup copy it was making is removed.
    private func settleLastRun(log: Logger) async {
        if let note = await engine.loadDeviceState() { log.warning(note) }
        for r in await engine.recoverInterrupted() {
            log.warning("replay of \(r.pageId) to \(r.device) (job \(r.job ?? "?")) was \(r.message ?? "interrupted")")
        }
        // Rows the stores could not read are left out of what they hold: said here, never dropped in silence.
        for device in await engine.machines.unreadable {
            log.warning(
                "the recognition record of device \(device) in \(RecordStore.fileName) cannot be read: left out, the machine behind it is fingerprinted afresh")
        }
        for id in await engine.changeRequests.unreadable {
            log.warning(
                "change request \(id) in \(RecordStore.fileName) cannot be read: it can be neither listed, signed nor applied")
        }
        for id in await engine.changeRequests.closedAtOpen {
            log.warning("change request \(id) was being applied when lastsetd stopped: closed as stale, it cannot be applied again")
        }
        for name in RecordBackup.removeLeftovers(dataDirectory: dataDirectory) {
            log.warning("removed \(name) from \(dataDirectory.path): a backup copy left by a daemon stopped while making it")
        }
    }
}
