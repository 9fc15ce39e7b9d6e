import LastsetSystem

/// The daemon's signals as a service: SIGHUP reloads the config; SIGTERM or SIGINT ends the service, which stops the
/// daemon's group (in reverse start order).
struct SignalHandling: Service {
    let name = "signals"
    private let signals: AsyncStream<SignalEvents.Signal>
    private let reloader: ConfigReloader
    private let log: Logger

    /// Installs the handlers at once (before READY: a signal sent the moment the daemon is ready must find them;
    /// one that comes before the group runs waits in the stream).
    init(reloader: ConfigReloader, log: Logger) {
        signals = SignalEvents.stream()
        self.reloader = reloader
        self.log = log
    }

    /// Reloads on each SIGHUP; returns on SIGTERM or SIGINT, or when stopped.
    func run() async {
        let (signals, reloader, log) = (self.signals, self.reloader, self.log)
        await ServiceGroup.runUntilStopped {
            for await signal in signals {
                if signal == .hangup {
                    _ = await reloader.reload()
                    continue
                }
                log.info("\(signal): stopping")
                return
            }
        }
    }
}
