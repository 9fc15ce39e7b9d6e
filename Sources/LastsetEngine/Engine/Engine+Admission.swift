import Foundation
import LastsetCore

extension Engine {
    /// Every archived version of `page`, newest first, each with whether it applies to this host's page (the one
    /// admission decision): a version captured against this very page definition applies (its entries are
    /// re-checked in full by every replay); any other is loaded and decided entry by entry.
    public func listings(for page: CompiledPage) async throws(ArchiveError) -> [TemplateListing] {
        var listings = try await archive.list(pageId: page.id)
        for i in listings.indices where listings[i].checksumOK && listings[i].problem == nil {
            guard let hash = listings[i].pageHash, hash != page.hash else {
                listings[i].applicable = true
                continue
            }
            let version = TemplateVersion(number: listings[i].version, host: listings[i].host, archivedAt: listings[i].archivedAt)
            do {
                let template = try await archive.load(
                    pageId: page.id,
                    version: version.host.map { .id(host: $0, number: version.number) } ?? .number(version.number))
                let applicability = TemplateApplicability(TemplateAdmission.admit(template, to: page, localHost: archive.host))
                listings[i].applicable = applicability.applicable
                listings[i].notApplicable = applicability.text
            } catch {
                listings[i].problem = error.description
            }
        }
        return listings
    }
}
