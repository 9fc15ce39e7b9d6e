import Foundation
import LastsetCore

/// A page of a whole-machine apply, with its latest template as loaded before the job (or why it could not be).
public struct ApplyAllPage: Sendable {
    /// The page, compiled with the device's conventions.
    public var page: CompiledPage
    /// Its template (the latest, or a restore's version), or the archive's error; nil: nothing to write (a restore
    /// with no verified version: `restore` says why).
    public var template: Result<Template, ArchiveError>?
    /// A restore's choice of version (`RestoreVersion`); nil for a plain whole-machine apply (the latest).
    public var restore: RestoreVersion?

    /// A page and its template (a restore's: the version last verified on the device, and why).
    public init(page: CompiledPage, template: Result<Template, ArchiveError>?, restore: RestoreVersion? = nil) {
        self.page = page
        self.template = template
        self.restore = restore
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

    /// Each page's version last verified on `device` (`RestoreVersion.choose`, from the device's state), loaded once
    /// before a restore — the replacement policy's and an operator's alike; a page with none carries no template.
    public func lastVerifiedTemplates(of pages: [CompiledPage], device: String) async -> [ApplyAllPage] {
        var loaded: [ApplyAllPage] = []
        for page in pages {
            let state = await deviceState.state(device: device, pageId: page.id)
            let latest = try? await archive.resolveVersion(pageId: page.id, .latest).id
            let choice = RestoreVersion.choose(pageId: page.id, device: device, state: state, latest: latest)
            guard let versionId = choice.versionId else {
                loaded.append(ApplyAllPage(page: page, template: nil, restore: choice))
                continue
            }
            do throws(ArchiveError) {
                guard let ref = TemplateVersionRef.parse(versionId) else {
                    throw .notFound(pageId: page.id, version: versionId)
                }
                let template = try await archive.load(pageId: page.id, version: ref)
                loaded.append(ApplyAllPage(page: page, template: .success(template), restore: choice))
            } catch {
                loaded.append(ApplyAllPage(page: page, template: .failure(error), restore: choice))
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
            guard let chosen = loaded.template else {
                results.append(
                    PageApplyResult(
                        pageId: page.id, status: .nothingToRestore, error: loaded.restore?.explanation,
                        restore: loaded.restore))
                continue
            }
            let template: Template
            do {
                template = try chosen.get()
            } catch {
                results.append(
                    PageApplyResult(pageId: page.id, status: .noTemplate, error: "\(error)", restore: loaded.restore))
                if policy == .stop { stoppedAt = page.id }
                continue
            }
            let report = await apply(
                page: page, template: template, to: target, options: options, who: who, signature: signature)
            let status = ApplyAllReport.status(of: report)
            results.append(
                PageApplyResult(
                    pageId: page.id, status: status, versionId: template.versionId.id, report: report,
                    restore: loaded.restore))
            await replayed(report)
            if status != (options.dryRun ? .planned : .succeeded), policy == .stop { stoppedAt = page.id }
        }
        progress(JobProgress(phase: .done, done: pages.count, total: pages.count))
        return ApplyAllReport(device: device, dryRun: options.dryRun, pages: results, stoppedAt: stoppedAt)
    }
}
