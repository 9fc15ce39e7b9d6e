import LastsetCore
import LastsetFleet
import LastsetSystem

/// The fleet's sync as a service: at start, then every `fleet.interval` (a reload that changes the fleet's settings
/// starts it again: `Fleet.apply`), what the hub has comes in and this host's work goes out.
struct FleetSyncLoop: Service {
    let name = "fleet sync"
    let fleet: Fleet
    let log: Logger

    /// Syncs until stopped. The loop is deliberately not a child task: a sync in progress is not waited for at stop.
    /// Its git calls block the fleet's queue with no cancellation point, each bounded only by its own deadline (30 s
    /// for the network, three attempts), longer than a stop may take; it ends on its own or with the process (what it
    /// commits is the repository's, and the next sync carries on from there).
    func run() async {
        let fleet = self.fleet
        let log = self.log
        fleet.startSchedule(
            { report, lastResult in
                if report.result != .ok {
                    log.warning("fleet sync with \(fleet.settings.remote): \(report.result.rawValue): \(report.message ?? "")")
                } else if lastResult != .ok || !report.templatesIn.isEmpty || report.commitsOut > 0 {
                    log.info(
                        "fleet sync: \(report.templatesIn.count) version(s) in, \(report.commitsOut) commit(s) out; ahead \(report.ahead ?? 0), behind \(report.behind ?? 0)"
                    )
                }
            },
            upkept: { packed in
                if packed.failure != nil { log.warning(packed.description) } else { log.info(packed.description) }
            })
        await ServiceGroup.untilStopped()
        fleet.stopSchedule()
    }
}
