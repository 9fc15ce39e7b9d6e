import Foundation
import LastsetCore
import LastsetEngine
import LastsetFormats

/// Page definitions shared through the fleet: each host publishes the definition its versions were captured against
/// (`FleetPageDefinition`, committed with the version), and judges its own pages against the others'.
extension Fleet {
    /// Sets this host's pages (at start and after every config reload), publishes the definitions its own versions
    /// were captured against that the repository lacks, and re-checks, in the background, which pages differ from
    /// the pages other hosts' versions were captured against (health).
    public nonisolated func setPages(_ pages: [CompiledPage]) {
        state.withLock { $0.pages = Dictionary(pages.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }) }
        Task {
            _ = try? await self.publishDefinitions()
            await self.checkPages()
        }
    }

    /// The definition file this host publishes for a version of `pageId` captured against `pageHash`: when this host's
    /// page is that definition (nil when the page changed since, or this host has no such page).
    func ownDefinition(pageId: String, pageHash: String) -> FleetPageDefinition? {
        guard let page = state.withLock({ $0.pages[pageId] }) else { return nil }
        return FleetPageDefinition(page.definition, pageHash: pageHash, host: settings.host)
    }

    /// Writes the definition file of `definition` into the work tree when it is missing; returns its path to add, or
    /// nil when it is there already.
    func writeDefinition(_ definition: FleetPageDefinition) throws(GitError) -> String? {
        let target = tree.appendingPathComponent(definition.path)
        guard !FileManager.default.fileExists(atPath: target.path) else { return nil }
        do {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try definition.encoded().write(to: target, options: .atomic)
        } catch {
            throw .failed(arguments: ["add"], status: -1, message: "cannot write \(target.path): \(error.localizedDescription)")
        }
        return definition.path
    }

    /// Publishes, in one commit, the definition of each of this host's pages that one of its own versions was captured
    /// against and the repository lacks (versions made before definitions were published). Returns the paths.
    func publishDefinitions() async throws(GitError) -> [String] {
        let pages = state.withLock { $0.pages }
        var paths: [String] = []
        for (pageId, page) in pages.sorted(by: { $0.key < $1.key }) {
            guard let listings = try? await archive.list(pageId: pageId),
                listings.contains(where: { $0.host == settings.host && $0.pageHash == page.hash }),
                let definition = FleetPageDefinition(page.definition, pageHash: page.hash, host: settings.host),
                let path = try writeDefinition(definition)
            else { continue }
            paths.append(path)
        }
        guard !paths.isEmpty else { return [] }
        try git.run(["add", "--"] + paths, timeout: settings.localTimeout)
        try commit("publish \(paths.count) page definition\(paths.count == 1 ? "" : "s") of \(settings.host)", who: nil)
        return paths
    }

    /// A published definition of `pageHash` for `pageId` (any host's: the same hash is the same definition; the one
    /// `preferred` published first), read from the repository's work tree.
    func publishedDefinition(pageId: String, pageHash: String, preferred: String?) -> FleetPageDefinition? {
        let folder = tree.appendingPathComponent("\(FleetPageDefinition.folder)/\(pageId)")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
            FleetPageDefinition.parse(fileName: $0)?.pageHash == pageHash
        }
        let ordered = names.sorted { a, b in
            let (pa, pb) = (a.hasSuffix("@\(preferred ?? "")" + ".json"), b.hasSuffix("@\(preferred ?? "")" + ".json"))
            return pa != pb ? pa : a < b
        }
        for name in ordered {
            guard let data = try? Data(contentsOf: folder.appendingPathComponent(name)),
                case .success(let file) = FleetPageDefinition.decode(data, pageId: pageId, fileName: name)
            else { continue }
            return file
        }
        return nil
    }

    /// For every page of this host: each other host's latest version whose page hash is not this page's, whether it
    /// still applies here (the one admission decision) and, when its definition is published, the registers that
    /// differ. Kept for health.
    public func checkPages() async {
        let pages = state.withLock { $0.pages }
        var differences: [FleetPageDifference] = []
        for (pageId, page) in pages.sorted(by: { $0.key < $1.key }) {
            guard let listings = try? await archive.list(pageId: pageId) else { continue }
            let fleetLatest = listings.first { $0.checksumOK }?.id
            // Newest first: the first listing of each other host is its latest version.
            var seen = Set<String>()
            for l in listings {
                guard let host = l.host, host != settings.host, l.checksumOK, seen.insert(host).inserted,
                    let hash = l.pageHash, hash != page.hash
                else { continue }
                var difference = FleetPageDifference(
                    pageId: pageId, host: host, version: l.id, pageHash: hash, applicable: false, reason: nil)
                difference.fleetLatest = l.id == fleetLatest
                if let published = publishedDefinition(pageId: pageId, pageHash: hash, preferred: host) {
                    let diff = PageDefinitionDifference(here: page.definition, there: published.definition)
                    difference.registers = diff.registers
                    difference.pageFields = diff.page
                }
                do {
                    let template = try await archive.load(pageId: pageId, version: .id(host: host, number: l.version))
                    let applicability = TemplateApplicability(
                        TemplateAdmission.admit(template, to: page, localHost: settings.host))
                    difference.applicable = applicability.applicable
                    difference.reason = applicability.text
                } catch {
                    difference.reason = "cannot load: \(error)"
                }
                differences.append(difference)
            }
        }
        state.withLock { $0.differingPages = differences }
    }
}

extension Fleet {
    /// This host's `page` against the fleet's definition of it: the one its latest version (any host's) was captured
    /// against, with what differs when that definition is published. `taken`: what this host took, for the view.
    public func pageView(_ page: CompiledPage, taken: TakenPageDefinition?) async -> FleetPageView {
        let latest = (try? await archive.list(pageId: page.id))?.first { $0.checksumOK }
        let fleetHash = latest?.pageHash
        var definition: FleetPageDefinition?
        var differences: PageDefinitionDifference?
        if let latest, let fleetHash, fleetHash != page.hash {
            definition = publishedDefinition(pageId: page.id, pageHash: fleetHash, preferred: latest.host)
            differences = definition.map { PageDefinitionDifference(here: page.definition, there: $0.definition) }
        }
        return FleetPageView(
            pageId: page.id, pageHash: page.hash, fleetVersion: latest?.id, fleetHash: fleetHash, definition: definition,
            differences: differences, taken: taken)
    }
}
