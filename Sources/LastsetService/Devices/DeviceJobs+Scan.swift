import LastsetCore
import LastsetEngine
import ModbusLink

/// The scan job (`POST /v1/scan`): one sweep per baud rate, each holding the whole line or TCP peer.
extension DeviceJobs {
    /// What a scan runs on: the endpoint per sweep (one per baud on a serial line), the units, the probe timeout,
    /// the configured pages with an identity and their latest templates, and the connection and lock of the machine.
    struct ScanPlan: Sendable {
        /// The endpoint of each sweep.
        var sweeps: [Endpoint]
        /// The units probed, in order.
        var units: [Int]
        /// Each probe's timeout.
        var timeout: Duration
        /// Pages with an identity and each one's latest template.
        var pages: [(page: CompiledPage, latest: Template?)]
        /// The resolved machine (its connection, lock and the line's declared settings).
        var target: DeviceTarget
        /// The report it starts from (endpoint, units, timeout).
        var report: ScanReport
    }

    /// Holds the whole machine for the first sweep (refused as any job is: `JobRefusal`) and starts the scan job;
    /// the line is released and taken again between sweeps (a later sweep that cannot have it ends the scan, saying
    /// why). Returns the running job, or the finished one when `wait`.
    func scan(_ plan: ScanPlan, label: String, who: String, wait: Bool) async throws -> JobInfo {
        let lock = JobLock(wholeMachine: plan.target.machine)
        let declared = plan.target.lineDeclarations
        try Self.held(
            await registry.acquire(lock, line: plan.sweeps[0].lineSettings, declared: declared, for: .scan), label: label)
        let (jobs, registry) = (jobs, registry)
        let job = await jobs.start(JobInfo(id: "", kind: .scan, pageId: "", device: label, who: who)) { id in
            var report = plan.report
            for (n, endpoint) in plan.sweeps.enumerated() {
                if n > 0 {
                    do throws(JobRefusal) {
                        try Self.held(
                            await registry.acquire(lock, line: endpoint.lineSettings, declared: declared, for: .scan),
                            label: label)
                    } catch {
                        report.error = "the sweep at \(endpoint.lineSettings?.baud ?? 0) baud was not run: \(error)"
                        break
                    }
                }
                let scanner = Scanner(
                    connection: plan.target.connection, endpoint: endpoint, timeout: plan.timeout, pages: plan.pages)
                let total = plan.sweeps.count * plan.units.count
                let progress: @Sendable (Int) -> Void = { done in
                    let p = JobProgress(phase: .scanning, done: n * plan.units.count + done, total: total)
                    Task { await jobs.update(id, progress: p) }
                }
                do throws(ScanStop) {
                    report.sweeps.append(try await scanner.sweep(units: plan.units, progress: progress))
                } catch {
                    report.error = error.reason
                }
                await registry.release(lock)
                if report.error != nil { break }
            }
            return JobOutcome(scan: report)
        }
        guard wait else { return job }
        guard let finished = await jobs.wait(job.id) else { throw JobRefusal.vanished(jobId: job.id) }
        return finished
    }
}
