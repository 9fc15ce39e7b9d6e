import Foundation
import LastsetCore

/// A page of a whole-machine apply, with its latest template as loaded before the job (or why it could not be).
public struct ApplyAllPage: Sendable {
    /// The page, compiled with the device's conventions.
    public var page: CompiledPage
    /// Its latest template, or the archive's error.
    public var template: Result<Template, ArchiveError>

    /// A page and its template (a restore's: the version last verified on the device).
    public init(page: CompiledPage, template: Result<Template, ArchiveError>) {
        self.page = page
        self.template = template
    }
}

extension Engine {
    /// Each page's latest template, loaded once before a whole-machine apply: what the job writes is what the
    /// operator's version pins were checked against (a promote or sync after this point changes nothing it does).
    public func latestTemplates(of pages: [CompiledPage]) async -> [ApplyAllPage] {
        var loaded: [ApplyAllPage] = []
        for page in pages {
            do throws(ArchiveError) {
                loaded.append(ApplyAllPage(page: page, template: .success(try await archive.load(pageId: page.id))))
            } catch {
                loaded.append(ApplyAllPage(page: page, template: .failure(error)))
            }
        }
        return loaded
    }

    /// Every page of a device, in order, to one target: each page a replay of its template with its own identity
    /// check, steps, verification and audit record (`apply`). After a page that does not succeed (nor, in a dry
    /// run, plan), the rest are not attempted unless `policy` is `continue`; a cancelled job attempts no further
    /// page. `replayed` hears each page's report as it ends (the device's health follows it).
    public func applyAll(
        device: String, pages: [ApplyAllPage], to target: DeviceTarget, options: ReplayOptions, policy: PageFailurePolicy,
        who: String, signature: WriteSignature? = nil, progress: @escaping ProgressHandler,
        replayed: @Sendable (ReplayReport) async -> Void
    ) async -> ApplyAllReport {
        var results: [PageApplyResult] = []
        var stoppedAt: String?
        for (index, loaded) in pages.enumerated() {
            let page = loaded.page
            if stoppedAt != nil || Task.isCancelled {
                results.append(
                    PageApplyResult(
                        pageId: page.id, status: .notAttempted,
                        error: Task.isCancelled ? "the daemon is stopping" : "stopped at page \(stoppedAt ?? "")"))
                continue
            }
            progress(JobProgress(phase: .page(page.id), done: index, total: pages.count))
            let template: Template
            do {
                template = try loaded.template.get()
            } catch {
                results.append(PageApplyResult(pageId: page.id, status: .noTemplate, error: "\(error)"))
                if policy == .stop { stoppedAt = page.id }
                continue
            }
            let report = await apply(
                page: page, template: template, to: target, options: options, who: who, signature: signature)
            let status = ApplyAllReport.status(of: report)
            results.append(PageApplyResult(pageId: page.id, status: status, versionId: template.versionId.id, report: report))
            await replayed(report)
            if status != (options.dryRun ? .planned : .succeeded), policy == .stop { stoppedAt = page.id }
        }
        progress(JobProgress(phase: .done, done: pages.count, total: pages.count))
        return ApplyAllReport(device: device, dryRun: options.dryRun, pages: results, stoppedAt: stoppedAt)
    }
}
