import Foundation
import LastsetCore
import LastsetFleet

/// Re-reads the config file and puts it in force, or keeps the running one when it has problems; one reload at
/// a time, whether SIGHUP or `POST /v1/reload` asked for it.
actor ConfigReloader {
    /// What a reload did.
    enum Verdict: Sendable {
        /// The new config is in force.
        case reloaded(ReloadResult)
        /// The new config was refused (each problem names the file, JSON path and bad value); the old one stays.
        case refused(configFile: String, problems: [String])
    }

    private let configPath: String
    private let dataDirectory: URL
    private let registry: DeviceRegistry
    private let poller: Poller
    private let notifier: SystemdNotifier
    private let log: Logger
    /// Builds the API's access rules for a new config (throws to refuse it) and returns what puts them in force.
    private var accessRules: (@Sendable (CompiledConfig) throws -> @Sendable () -> Void)?

    init(
        configPath: String, dataDirectory: URL, registry: DeviceRegistry, poller: Poller, notifier: SystemdNotifier,
        log: Logger
    ) {
        self.configPath = configPath
        self.dataDirectory = dataDirectory
        self.registry = registry
        self.poller = poller
        self.notifier = notifier
        self.log = log
    }

    /// The fleet, told this host's pages after every reload (which pages differ from other hosts').
    private var fleet: Fleet?

    /// Sets the fleet to tell of new pages.
    func setFleet(_ fleet: Fleet) { self.fleet = fleet }

    /// Sets how a reload rebuilds the API's tokens and roles.
    func setAccessRules(_ build: @escaping @Sendable (CompiledConfig) throws -> @Sendable () -> Void) { accessRules = build }

    /// Loads and checks the config file; swaps it in only when it has no problem. Tells systemd RELOADING=1
    /// first and READY=1 after, either way.
    func reload() async -> Verdict {
        try? notifier.reloading()
        defer { try? notifier.ready() }
        do throws(ConfigErrors) {
            // The config file, with the page definitions this host took from its fleet in place of its own.
            let (next, notes) = try TakenDefinitions.load(path: configPath, dataDirectory: dataDirectory)
            for note in notes { log.info(note) }
            // The fleet section: applied, or the whole reload refused with why (FleetReload).
            let running = await registry.config.source.fleet
            let fleetChange = FleetReload.decide(
                running: running, next: next.source.fleet, defaultHost: FleetSettings.hostname())
            if case .refused(let path, let value, let message) = fleetChange {
                throw ConfigErrors(problems: [ConfigProblem(file: configPath, path: path, value: value, message: message)])
            }
            var commitAccess: (@Sendable () -> Void)?
            do {
                commitAccess = try accessRules?(next)
            } catch {
                throw ConfigErrors(problems: [ConfigProblem(file: configPath, path: "api", value: "", message: "\(error)")])
            }
            if case .apply(let section) = fleetChange, let fleet {
                do {
                    try await fleet.apply(FleetSettings(section))
                    log.info("fleet settings applied: hub \(section.remote), every \(section.interval ?? "60s")")
                } catch {
                    throw ConfigErrors(
                        problems: [ConfigProblem(file: configPath, path: "fleet", value: section.remote, message: "\(error)")])
                }
            }
            commitAccess?()
            await registry.replace(config: next)
            poller.replace(config: next)
            fleet?.setPages(next.pages)
            log.info("config reloaded: \(next.devices.count) devices, \(next.pages.count) pages")
            return .reloaded(ReloadResult(configFile: configPath, devices: next.devices.count, pages: next.pages.count))
        } catch {
            let problems = error.problems.map { "\($0)" }
            for p in problems { log.error(p) }
            log.error("config reload refused, keeping the running config: \(problems.count) problem(s)")
            return .refused(configFile: configPath, problems: problems)
        }
    }
}
