import LastsetCore
import LastsetEngine

extension DeviceJobs {
    /// The restore a `replacement: "restore"` policy asks for: each page's last verified version (`pages`, loaded
    /// before the job) replayed through the normal path — identity check, verification, commit, audit — as
    /// `policy:replacement`, in one whole-machine job holding the device. Refused (nothing started) while another job
    /// holds it. Holding it, `recheck` reads the machine again: when it says why not, nothing is written.
    func restore(
        _ pages: [ApplyAllPage], device: CompiledDevice, on target: DeviceTarget,
        recheck: @escaping @Sendable (DeviceTarget) async -> String?,
        finished: @escaping @Sendable (ApplyAllReport) async -> Void
    ) async throws -> JobInfo {
        let (engine, registry) = (engine, registry)
        let who = ReplacementPolicy.principal
        let pageIds = pages.map(\.page.id).joined(separator: ",")
        return try await run(.applyAll, pageId: pageIds, on: target, who: who, wait: false) { progress in
            if let why = await recheck(target) {
                let report = ApplyAllReport(
                    device: device.id, dryRun: false,
                    pages: pages.map {
                        PageApplyResult(pageId: $0.page.id, status: .notAttempted, error: "not restored: \(why)")
                    }, stoppedAt: pages.first?.page.id)
                await finished(report)
                return JobOutcome(applyAll: report)
            }
            let report = await engine.applyAll(
                device: device.id, pages: pages, to: target, options: ReplayOptions(), policy: .stop, who: who,
                progress: progress
            ) { report in
                await registry.record(DeviceContact(replay: report), device: device.id)
            }
            await finished(report)
            return JobOutcome(applyAll: report)
        }
    }
}
