import Foundation
import LastsetCore
import ModbusLink

/// The templates under `<data>/templates/<pageId>/`: versioned, checksummed, written durably, pruned
/// to the history limit. Every name is checked before it becomes a path.
///
/// Without a fleet the files are `v000001.json …` (ids `1`, `2`, …). With a fleet host set, this host
/// numbers only its own versions and every file name carries host and archive time
/// (`v000003@line-7@20261201T105500.123Z.json`, id `line-7-3`; see `TemplateVersion`).
public actor TemplateArchive {
    public nonisolated let root: URL
    public let historyLimit: Int
    /// This host's fleet name; nil without a fleet.
    public nonisolated let host: String?
    /// `<data>/templates`, opened once; every page directory and file below it is opened relative to it,
    /// never through a link.
    private nonisolated let templates: DirectoryHandle
    private let executor = DispatchQueueExecutor(label: "lastset.archive")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens (creating) the archive under the data directory and removes debris of interrupted writes.
    /// With a fleet `host`, versions made before the fleet are renamed into this host's namespace
    /// (`v000003.json` → id `<host>-3`: the number keeps meaning the same template here).
    public init(dataDirectory: URL, historyLimit: Int = 20, host: String? = nil, cacheEntryLimit: Int = 16_000)
        throws(ArchiveError)
    {
        self.cacheEntryLimit = cacheEntryLimit
        root = dataDirectory.appendingPathComponent("templates", isDirectory: true)
        self.historyLimit = max(1, historyLimit)
        if let host, !SafeName.isValid(host) { throw .invalidName(host) }
        self.host = host
        do throws(StorageError) {
            try DurableFile.makeDirectory(dataDirectory)
            guard let templates = try DirectoryHandle.open(dataDirectory.path).subdirectory("templates", create: true) else {
                throw StorageError(operation: "create directory", path: root.path, errno: ENOENT)
            }
            self.templates = templates
        } catch {
            throw .storage(error)
        }
        for page in templates.names() where SafeName.isValid(page) {
            guard let dir = try? templates.subdirectory(page, create: false) else { continue }
            _ = DurableFile.removeDebris(in: dir)
            if let host { try Self.migrateLegacy(in: dir, pageId: page, host: host) }
        }
    }

    /// Gives this host's name and an archive time (its capture time) to every version made before the
    /// fleet. A crash half-way leaves both names of a version; the next start removes the old one.
    private static func migrateLegacy(in dir: DirectoryHandle, pageId: String, host: String) throws(ArchiveError) {
        let versions = dir.names().compactMap(TemplateVersion.parse(fileName:))
        var changed = false
        for legacy in versions where legacy.host == nil {
            guard let file = try? dir.readFile(legacy.fileName), var t = try? TemplateFile.decode(file.data), t.pageId == pageId,
                t.version == legacy.number, t.host == nil
            else { continue }  // A corrupt file stays as it is, listed with its reason.
            if !versions.contains(where: { $0.host == host && $0.number == legacy.number }) {
                t.host = host
                t.archivedAt = t.capturedAt
                do {
                    try dir.write(TemplateFile.encode(t), to: t.versionId.fileName, sync: false)
                } catch {
                    throw .storage(error)
                }
            }
            _ = dir.remove(legacy.fileName)
            changed = true
        }
        if changed {
            do {
                try dir.sync()
            } catch {
                throw .storage(error)
            }
        }
    }

    /// The page's directory (nil when it does not exist and `create` is false); a link there is refused.
    private func directory(_ pageId: String, create: Bool = false) throws(ArchiveError) -> DirectoryHandle? {
        guard SafeName.isValid(pageId) else { throw .invalidName(pageId) }
        do {
            return try templates.subdirectory(pageId, create: create)
        } catch {
            throw .storage(error)
        }
    }

    /// Versions present in a page directory, oldest first in fleet order (corrupt files and links included:
    /// they are refused when read, never skipped). Read with readdir: FileManager's listing costs more than
    /// the rest of storing a small template.
    private nonisolated func versions(in dir: DirectoryHandle?) -> [TemplateVersion] {
        guard let dir else { return [] }
        return dir.names().compactMap(TemplateVersion.parse(fileName:)).sorted()
    }

    /// The version a reference names, among those in the page directory.
    private func resolve(_ ref: TemplateVersionRef, pageId: String, in dir: DirectoryHandle?) throws(ArchiveError)
        -> TemplateVersion
    {
        let all = versions(in: dir)
        if case .latest = ref {
            guard let v = all.last else { throw .notFound(pageId: pageId, version: nil) }
            return v
        }
        guard let v = all.last(where: { ref.names($0, localHost: host) }) else {
            throw .notFound(pageId: pageId, version: ref.description)
        }
        return v
    }

    /// Archives a template as the page's next version (this host's next number); returns it with its
    /// version (and, in a fleet, host and archive time) set.
    ///
    /// Throws `.notDurable` (carrying the stored template) when the version is in place but the directory
    /// fsync that makes it durable failed: it is archived and served as the latest, yet a power loss could
    /// still lose it. Every other error means nothing was archived.
    public func store(_ template: Template) throws(ArchiveError) -> Template {
        try commit(stage(template))
    }

    /// A template's next version written to a temporary file in its page directory and fsynced, its number
    /// reserved: not archived (not listed, not loaded, debris after a crash) until `commit`.
    public struct StagedVersion: Sendable {
        /// The template as it will be archived (version, host and archive time set).
        public let template: Template
        fileprivate let file: DirectoryHandle.Staged
    }

    /// Numbers given to staged versions not yet committed or discarded, by page.
    private var reserved: [String: Set<Int>] = [:]

    /// The first half of `store`: numbers the version and writes its file, which is not yet in place. A
    /// capture stages while its audit intent is being written, and commits once it is in the log.
    public func stage(_ template: Template) throws(ArchiveError) -> StagedVersion {
        guard let dir = try directory(template.pageId, create: true) else {
            throw .notFound(pageId: template.pageId, version: nil)
        }
        var stored = template.roundedToMilliseconds()
        // A deleted version's number is never given again (its tombstone stays): an id keeps its meaning.
        let used =
            versions(in: dir).filter { $0.host == host }.map(\.number) + deletedNumbers(in: dir)
            + (reserved[template.pageId] ?? [])
        stored.version = (used.max() ?? 0) + 1
        stored.host = host
        stored.archivedAt = host == nil ? nil : TemplateVersion.milliseconds(Date())
        do {
            let file = try dir.stage(TemplateFile.encode(stored), for: stored.versionId.fileName)
            reserved[template.pageId, default: []].insert(stored.version)
            return StagedVersion(template: stored, file: file)
        } catch {
            throw .storage(error)
        }
    }

    /// Puts a staged version in place as the page's latest, prunes the history, and fsyncs the directory.
    /// Throws `.notDurable` (carrying the template) when only that fsync failed, as `store` does.
    public func commit(_ staged: StagedVersion) throws(ArchiveError) -> Template {
        let stored = staged.template
        reserved[stored.pageId]?.remove(stored.version)
        let dir = staged.file.directory
        do {
            try staged.file.commit(sync: false)
        } catch {
            throw .storage(error)
        }
        // One directory fsync makes both the new version's rename and the pruning of old ones durable.
        prune(stored.pageId, in: dir, versions: versions(in: dir))
        if let identity = dir.identity(stored.versionId.fileName) { remember(stored, identity: identity) }
        do {
            try dir.sync()
        } catch {
            throw .notDurable(stored, error)
        }
        return stored
    }

    /// Drops a staged version: its file is removed and its number free again (nothing was archived).
    public func discard(_ staged: StagedVersion) {
        reserved[staged.template.pageId]?.remove(staged.template.version)
        staged.file.discard()
    }

    /// What `adopt` did with a template file from another host.
    public enum Adoption: Sendable, Hashable {
        /// Archived as a new version.
        case added(TemplateVersion)
        /// The very same file was already here.
        case present(TemplateVersion)
    }

    /// Archives a fleet template file under its own name, as fetched: its checksum, page, host,
    /// number and archive time must match the name, and no other file may carry its id (an id never
    /// changes meaning). Nothing is written when any check fails.
    public func adopt(_ data: Data, fileName: String, pageId: String) throws(ArchiveError) -> Adoption {
        guard let version = TemplateVersion.parse(fileName: fileName), version.host != nil else {
            throw .invalidImport("\"\(fileName)\" is not the name of a fleet template version")
        }
        let summary: TemplateFile.Summary
        do {
            summary = try TemplateFile.summary(data)
        } catch {
            throw .corrupt(pageId: pageId, version: version.id, reason: error.reason)
        }
        let named = TemplateVersion(number: summary.version, host: summary.host, archivedAt: summary.archivedAt)
        guard summary.pageId == pageId, named == version else {
            throw .corrupt(
                pageId: pageId, version: version.id,
                reason: "file \(fileName) holds page \"\(summary.pageId)\" version \(named.fileName)")
        }
        guard let dir = try directory(pageId, create: true) else { throw .notFound(pageId: pageId, version: nil) }
        let existing = versions(in: dir)
        if let same = existing.first(where: { $0.host == version.host && $0.number == version.number }) {
            if same == version, (try? dir.readFile(same.fileName))??.data == data { return .present(version) }
            throw .conflict(
                pageId: pageId, version: version.id,
                reason:
                    "this archive already holds another template with that id (\(same.fileName)); two hosts may share one fleet host name"
            )
        }
        do {
            try dir.write(data, to: fileName, sync: false)
            prune(pageId, in: dir, versions: (existing + [version]).sorted())
            try dir.sync()
        } catch {
            throw .storage(error)
        }
        return .added(version)
    }

    /// The tombstone a deleted version leaves: its file name with `.deleted` for `.json` (never parsed as a version).
    private nonisolated static func tombstoneName(_ v: TemplateVersion) -> String {
        String(v.fileName.dropLast(5)) + ".deleted"
    }

    /// Numbers of this host's deleted versions (their tombstones).
    private nonisolated func deletedNumbers(in dir: DirectoryHandle) -> [Int] {
        dir.names().compactMap { name -> Int? in
            guard name.hasSuffix(".deleted"), let v = TemplateVersion.parse(fileName: String(name.dropLast(8)) + ".json"),
                v.host == host
            else { return nil }
            return v.number
        }
    }

    /// The version a reference names (`.latest`, a number, a fleet id), without reading it: a corrupt file
    /// resolves too, so it can be deleted.
    public func resolveVersion(pageId: String, _ ref: TemplateVersionRef) throws(ArchiveError) -> TemplateVersion {
        try resolve(ref, pageId: pageId, in: try directory(pageId))
    }

    /// Removes one version's file (the next latest is the version before it). A tombstone is written first
    /// so the number is never given to another template; the directory is fsynced.
    public func remove(pageId: String, version ref: TemplateVersionRef) throws(ArchiveError) -> TemplateVersion {
        let dir = try directory(pageId)
        let v = try resolve(ref, pageId: pageId, in: dir)
        guard let dir else { throw .notFound(pageId: pageId, version: v.id) }
        do {
            try dir.write(Data(), to: Self.tombstoneName(v), sync: false)
        } catch {
            throw .storage(error)
        }
        guard dir.remove(v.fileName) else {
            throw .storage(StorageError(operation: "remove", path: root.path + "/\(pageId)/" + v.fileName, errno: errno))
        }
        forget(Self.cacheKey(pageId, v))
        do {
            try dir.sync()
        } catch {
            throw .storage(error)
        }
        return v
    }

    /// Removes the oldest versions beyond the history limit (the caller fsyncs the directory). This
    /// host's newest version is always kept: it carries the host's numbering.
    private func prune(_ pageId: String, in dir: DirectoryHandle, versions: [TemplateVersion]) {
        guard versions.count > historyLimit else { return }
        let keep = versions.last { $0.host == host }
        var excess = versions.count - historyLimit
        for v in versions where excess > 0 && v != keep {
            dir.remove(v.fileName)
            forget(Self.cacheKey(pageId, v))
            excess -= 1
        }
    }

    // MARK: Decoded-template cache
    //
    // Provisioning replays the same template to many machines: decoding it each time would cost more
    // than the wire. A cached template is used only while its file is the very file it came from
    // (same inode, size and modification time) and its checksum still holds; otherwise a fresh load.

    private typealias FileIdentity = DirectoryHandle.FileIdentity

    private var cache: [String: (identity: FileIdentity, template: Template, used: UInt64)] = [:]
    private var clock: UInt64 = 0
    /// Decoded templates kept in memory.
    private let cacheLimit = 8
    /// Register entries the cached templates may hold in all (≈ 200 bytes each decoded): eight versions of
    /// a 7,500-register page held 12 MiB after a few captures. The newest one is always kept.
    let cacheEntryLimit: Int
    private var cachedEntries = 0

    /// Templates and register entries in the decoded-template cache (tests).
    public var cacheFill: (templates: Int, entries: Int) { (cache.count, cachedEntries) }

    private nonisolated static func cacheKey(_ pageId: String, _ version: TemplateVersion) -> String {
        "\(pageId)/\(version.fileName)"
    }

    private func remember(_ template: Template, identity: FileIdentity) {
        clock += 1
        forget(Self.cacheKey(template.pageId, template.versionId))
        cache[Self.cacheKey(template.pageId, template.versionId)] = (identity, template, clock)
        cachedEntries += template.entries.count
        while cache.count > 1 && (cache.count > cacheLimit || cachedEntries > cacheEntryLimit),
            let oldest = cache.min(by: { $0.value.used < $1.value.used })?.key
        {
            forget(oldest)
        }
    }

    private func forget(_ key: String) {
        guard let gone = cache.removeValue(forKey: key) else { return }
        cachedEntries -= gone.template.entries.count
    }

    /// The given version, or the latest when `version` is nil. A corrupt file is refused, never skipped.
    public func load(pageId: String, version ref: TemplateVersionRef? = nil) throws(ArchiveError) -> Template {
        let dir = try directory(pageId)
        let v = try resolve(ref ?? .latest, pageId: pageId, in: dir)
        guard let dir else { throw .notFound(pageId: pageId, version: v.id) }
        let key = Self.cacheKey(pageId, v)
        let (data, identity) = try read(dir, pageId: pageId, version: v)
        if let hit = cache[key], hit.identity == identity {
            // The checksum is still checked on every load (bit rot keeps the file's identity);
            // only the decoding is skipped.
            do {
                _ = try TemplateFile.summary(data)
            } catch {
                forget(key)
                throw .corrupt(pageId: pageId, version: v.id, reason: error.reason)
            }
            clock += 1
            cache[key]?.used = clock
            return hit.template
        }
        let template: Template
        do {
            template = try TemplateFile.decode(data)
        } catch {
            throw .corrupt(pageId: pageId, version: v.id, reason: error.reason)
        }
        guard template.pageId == pageId, template.versionId == v else {
            throw .corrupt(
                pageId: pageId, version: v.id,
                reason: "file holds page \"\(template.pageId)\" version \(template.versionId.fileName)")
        }
        remember(template, identity: identity)
        return template
    }

    /// The bytes of a version's file and the identity of the very file read (no link followed).
    private nonisolated func read(_ dir: DirectoryHandle, pageId: String, version: TemplateVersion) throws(ArchiveError) -> (
        Data, FileIdentity
    ) {
        do throws(StorageError) {
            if let file = try dir.readFile(version.fileName) { return (file.data, file.identity) }
        } catch {
            throw .corrupt(pageId: pageId, version: version.id, reason: error.description)
        }
        // Listed a moment ago, gone now (removed from outside the daemon).
        throw .notFound(pageId: pageId, version: version.id)
    }

    /// The file of a version as stored (for export), after checking it loads.
    public func exportData(pageId: String, version: TemplateVersionRef? = nil) throws(ArchiveError) -> Data {
        let template = try load(pageId: pageId, version: version)
        let v = template.versionId
        guard let dir = try directory(pageId) else { throw .notFound(pageId: pageId, version: v.id) }
        let (data, _) = try read(dir, pageId: pageId, version: v)
        do {
            _ = try TemplateFile.summary(data)
        } catch {
            throw .corrupt(pageId: pageId, version: v.id, reason: error.reason)
        }
        return data
    }

    /// The stored file of a version, relative to the templates root (`<page>/<file name>`).
    public nonisolated func relativePath(of template: Template) -> String {
        "\(template.pageId)/\(template.versionId.fileName)"
    }

    /// The file names of a page's versions archived by `host` (no file is read).
    public func fileNames(pageId: String, host: String?) throws(ArchiveError) -> [String] {
        versions(in: try directory(pageId)).filter { $0.host == host }.map(\.fileName)
    }

    /// The bytes of a version file by name, as stored (nil when there is none).
    public func fileData(pageId: String, fileName: String) throws(ArchiveError) -> Data? {
        guard let version = TemplateVersion.parse(fileName: fileName), let dir = try directory(pageId) else { return nil }
        return try read(dir, pageId: pageId, version: version).0
    }

    /// Page ids with a directory in the archive.
    public func pageIds() -> [String] {
        templates.names().filter(SafeName.isValid).sorted()
    }

    /// Every version of a page, newest first; reads each file's checked summary, not its entries.
    public func list(pageId: String) throws(ArchiveError) -> [TemplateListing] {
        var listings: [TemplateListing] = []
        guard let dir = try directory(pageId) else { return [] }
        for v in versions(in: dir).reversed() {
            func broken(_ reason: String) -> TemplateListing {
                TemplateListing(
                    pageId: pageId, version: v.number, capturedAt: nil, sourceDevice: nil, entryCount: nil, checksumOK: false,
                    problem: reason, host: v.host, archivedAt: v.archivedAt)
            }
            do {
                let (data, _) = try read(dir, pageId: pageId, version: v)
                let s = try TemplateFile.summary(data)
                let named = TemplateVersion(number: s.version, host: s.host, archivedAt: s.archivedAt)
                guard s.pageId == pageId, named == v else {
                    listings.append(broken("file holds page \"\(s.pageId)\" version \(named.fileName)"))
                    continue
                }
                listings.append(
                    TemplateListing(
                        pageId: pageId, version: v.number, capturedAt: s.capturedAt, sourceDevice: s.source,
                        entryCount: s.entries,
                        checksumOK: true, problem: nil, host: v.host, archivedAt: v.archivedAt, pageHash: s.pageHash))
            } catch let error as TemplateFileError {
                listings.append(broken(error.reason))
            } catch let error as ArchiveError {
                guard case .corrupt(pageId: _, version: _, let reason) = error else { throw error }
                listings.append(broken(reason))
            } catch {
                listings.append(broken("\(error)"))
            }
        }
        return listings
    }
}

/// Why the archive could not do what was asked.
public enum ArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A page id that is not a safe name (could escape the data directory).
    case invalidName(String)
    /// No such page template or version (the version as asked for: `3`, `line-7-3`).
    case notFound(pageId: String, version: String?)
    /// The file exists but cannot be used.
    case corrupt(pageId: String, version: String, reason: String)
    /// A fleet version whose id already names another template here.
    case conflict(pageId: String, version: String, reason: String)
    /// An imported file that is not a valid template.
    case invalidImport(String)
    /// An imported template of another page.
    case wrongPage(expected: String, found: String)
    /// A template whose entries do not fit the page (`TemplateAdmission`): each refused entry, with why.
    case notAdmissible(pageId: String, [EntryRefusal])
    case storage(StorageError)
    /// The template is archived (in place, served as the latest) but the directory fsync that makes it durable
    /// failed: a power loss could still lose it.
    case notDurable(Template, StorageError)
    /// The template is archived (in place, served as the latest) but the audit record of that outcome could
    /// not be written after it: the audit log holds the import's "started" record only.
    case unaudited(Template, StorageError)

    public var description: String {
        switch self {
        case .invalidName(let n): return "invalid page id \"\(n)\": only [A-Za-z0-9][A-Za-z0-9._-]* (max 64) is allowed"
        case .notFound(let p, nil): return "no template archived for page \"\(p)\""
        case .notFound(let p, let v?): return "page \"\(p)\" has no template version \(v)"
        case .corrupt(let p, let v, let r): return "template \"\(p)\" version \(v) is corrupt: \(r)"
        case .conflict(let p, let v, let r): return "template \"\(p)\" version \(v) refused: \(r)"
        case .invalidImport(let r): return "cannot import template: \(r)"
        case .wrongPage(let expected, let found): return "the file is a template of page \"\(found)\", not \"\(expected)\""
        case .notAdmissible(let p, let refusals):
            return "the template does not fit page \"\(p)\": " + TemplateAdmission.text(refusals)
        case .storage(let e): return e.description
        case .notDurable(let t, let e):
            return
                "archived as version \(t.versionId.id), but not confirmed durable (\(e)): a power loss could still lose this version"
        case .unaudited(let t, let e):
            return
                "archived as version \(t.versionId.id), but its audit record could not be written (\(e)): the audit log shows this import as started only"
        }
    }
}
