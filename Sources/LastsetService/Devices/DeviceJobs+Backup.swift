import LastsetCore
import LastsetEngine

extension DeviceJobs {
    /// Reads every page of the snapshot's device as found, holding it, and archives what changed (`Engine.backUp`);
    /// each page archived is announced as a `backup` event. Refused, with nothing sent, while another job or a poll
    /// holds the machine.
    /// `finished` hears the report before the job ends.
    func backUp(
        _ snapshot: JobSnapshot, who: String, wait: Bool, finished: (@Sendable (AsFoundReport) async -> Void)? = nil
    ) async throws -> JobInfo {
        let (engine, device, target, config) = (engine, snapshot.device, snapshot.target, snapshot.config)
        let pages = config.pages(of: device)
        let events = jobs.events
        return try await run(.backup, pageId: device.pageIds.joined(separator: ","), on: target, who: who, wait: wait) {
            progress in
            let report = await engine.backUp(
                device: device.id, pages: pages, from: target, who: who, keep: config.source.asFoundLimit, progress: progress)
            for page in report.pages where page.outcome == .first || page.outcome == .changed {
                events?.publish(
                    ServerEvent(
                        event: .backup, device: device.id, page: page.pageId, registers: page.changes.map(\.registerId),
                        summary: page.summary))
            }
            await finished?(report)
            return JobOutcome(asFound: report)
        }
    }
}
