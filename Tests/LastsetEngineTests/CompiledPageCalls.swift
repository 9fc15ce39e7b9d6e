import Foundation
import LastsetCore
import LastsetEngine

/// The engine takes compiled pages; these tests declare pages as `PageDefinition` tables and compile
/// them at the call.
extension Engine {
    func capture(page: PageDefinition, from target: DeviceTarget, who: String, progress: ProgressHandler? = nil) async
        -> CaptureReport
    {
        await capture(page: CompiledPage(page), from: target, who: who, progress: progress)
    }

    func apply(
        page: PageDefinition, version: TemplateVersionRef? = nil, to target: DeviceTarget, options: ReplayOptions, who: String,
        progress: ProgressHandler? = nil
    ) async throws(ArchiveError) -> ReplayReport {
        try await apply(page: CompiledPage(page), version: version, to: target, options: options, who: who, progress: progress)
    }

    func importTemplate(_ data: Data, into page: PageDefinition, who: String) async throws(ArchiveError) -> Template {
        try await importTemplate(data, into: CompiledPage(page), who: who)
    }
}
