import Foundation
import LastsetCore
import LastsetEngine
import LastsetFleet
import LastsetHTTP
import LastsetSystem

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

    /// How long the services' whole stop may take (the jobs' deadline within it) before every service still running
    /// is stopped at once; systemd's `TimeoutStopSec=30s` is the bound after that.
    static let stopDeadline: Duration = .seconds(20)

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

    /// Opens what the daemon needs, then runs its services until a signal (or a failing service) stops them.
    private static func serve(_ options: DaemonOptions, log: Logger) async throws -> Int32 {
        guard let start = await DaemonStart.open(options, log: log) else { return 1 }
        defer { withExtendedLifetime(start.directoryLock) {} }
        let group = ServiceGroup(try await services(start, options, log: log), stopDeadline: stopDeadline) { notice in
            switch notice {
            case .ended(let name): log.debug("\(name) ended: stopping")
            case .stopping(let name): log.debug("stopping \(name)")
            case .deadlinePassed(let names):
                log.warning(
                    "still stopping at the \(stopDeadline) deadline: \(names.joined(separator: ", ")); stopping them all at once")
            }
        }
        try await group.run()
        log.info("stopped")
        return 0
    }
}

/// A reason the daemon cannot start.
struct DaemonError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
