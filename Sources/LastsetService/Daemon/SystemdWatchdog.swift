import LastsetSystem

/// systemd's watchdog as a service: WATCHDOG=1 every half `WatchdogSec` while the daemon passes its `SelfCheck`;
/// nothing when no watchdog is armed.
struct SystemdWatchdog: Service {
    let name = "systemd watchdog"
    let notifier: SystemdNotifier
    let selfCheck: SelfCheck
    let log: Logger

    /// Pings until stopped, logging each change of the self-check's verdict.
    func run() async {
        let (notifier, selfCheck, log) = (self.notifier, self.selfCheck, self.log)
        await ServiceGroup.runUntilStopped {
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
        // Without an armed watchdog the loop returns at once: a service waits for its stop.
        await ServiceGroup.untilStopped()
    }
}
