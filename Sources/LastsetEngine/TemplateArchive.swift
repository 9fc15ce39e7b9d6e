import Foundation
import LastsetCore
import ModbusLink

/// The templates under `<data>/templates/<pageId>/v000001.json …`: versioned, checksummed, written
/// durably, pruned to the history limit. Every name is checked before it becomes a path.
public actor TemplateArchive {
    public nonisolated let root: URL
    public let historyLimit: Int
    /// `<data>/templates`, opened once; every page directory and file below it is opened relative to it,
    /// never through a link.
    private nonisolated let templates: DirectoryHandle
    private let executor = DispatchQueueExecutor(label: "lastset.archive")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens (creating) the archive under the data directory and removes debris of interrupted writes.
    public init(dataDirectory: URL, historyLimit: Int = 20) throws(ArchiveError) {
        root = dataDirectory.appendingPathComponent("templates", isDirectory: true)
        self.historyLimit = max(1, historyLimit)
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
            if let dir = try? templates.subdirectory(page, create: false) { _ = DurableFile.removeDebris(in: dir) }
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

    private nonisolated static func fileName(_ version: Int) -> String { String(format: "v%06d.json", version) }

    /// Versions present in a page directory, ascending (corrupt files and links included: they are refused
    /// when read, never skipped). Read with readdir: FileManager's listing costs more than the rest of storing
    /// a small template.
    private nonisolated func versionNumbers(in dir: DirectoryHandle?) -> [Int] {
        guard let dir else { return [] }
        var versions: [Int] = []
        for name in dir.names() {
            guard name.hasPrefix("v"), name.hasSuffix(".json"), name.count == 12, let v = Int(name.dropFirst().dropLast(5)) else {
                continue
            }
            versions.append(v)
        }
        return versions.sorted()
    }

    /// Archives a template as the page's next version; returns it with its version number set.
    ///
    /// Throws `.notDurable` (carrying the stored template) when the version is in place but the directory
    /// fsync that makes it durable failed: it is archived and served as the latest, yet a power loss could
    /// still lose it. Every other error means nothing was archived.
    public func store(_ template: Template) throws(ArchiveError) -> Template {
        guard let dir = try directory(template.pageId, create: true) else {
            throw .notFound(pageId: template.pageId, version: nil)
        }
        let existing = versionNumbers(in: dir)
        var stored = template.roundedToMilliseconds()
        stored.version = (existing.last ?? 0) + 1
        let name = Self.fileName(stored.version)
        do {
            try dir.write(TemplateFile.encode(stored), to: name, sync: false)
        } catch {
            throw .storage(error)
        }
        // One directory fsync makes both the new version's rename and the pruning of old ones durable.
        prune(template.pageId, in: dir, versions: existing + [stored.version])
        if let identity = dir.identity(name) { remember(stored, identity: identity) }
        do {
            try dir.sync()
        } catch {
            throw .notDurable(stored, error)
        }
        return stored
    }

    /// Removes the oldest versions beyond the history limit (the caller fsyncs the directory).
    private func prune(_ pageId: String, in dir: DirectoryHandle, versions: [Int]) {
        guard versions.count > historyLimit else { return }
        for v in versions.prefix(versions.count - historyLimit) {
            dir.remove(Self.fileName(v))
            cache[Self.cacheKey(pageId, v)] = nil
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

    private nonisolated static func cacheKey(_ pageId: String, _ version: Int) -> String { "\(pageId)/\(version)" }

    private func remember(_ template: Template, identity: FileIdentity) {
        clock += 1
        cache[Self.cacheKey(template.pageId, template.version)] = (identity, template, clock)
        if cache.count > cacheLimit, let oldest = cache.min(by: { $0.value.used < $1.value.used })?.key {
            cache[oldest] = nil
        }
    }

    /// The given version, or the latest when `version` is nil. A corrupt file is refused, never skipped.
    public func load(pageId: String, version: Int? = nil) throws(ArchiveError) -> Template {
        let dir = try directory(pageId)
        let versions = versionNumbers(in: dir)
        guard let v = version ?? versions.last else { throw .notFound(pageId: pageId, version: nil) }
        guard v >= 1, versions.contains(v), let dir else { throw .notFound(pageId: pageId, version: v) }
        let key = Self.cacheKey(pageId, v)
        let (data, identity) = try read(dir, pageId: pageId, version: v)
        if let hit = cache[key], hit.identity == identity {
            // The checksum is still checked on every load (bit rot keeps the file's identity);
            // only the decoding is skipped.
            do {
                _ = try TemplateFile.summary(data)
            } catch {
                cache[key] = nil
                throw .corrupt(pageId: pageId, version: v, reason: error.reason)
            }
            clock += 1
            cache[key]?.used = clock
            return hit.template
        }
        let template: Template
        do {
            template = try TemplateFile.decode(data)
        } catch {
            throw .corrupt(pageId: pageId, version: v, reason: error.reason)
        }
        guard template.pageId == pageId, template.version == v else {
            throw .corrupt(
                pageId: pageId, version: v, reason: "file holds page \"\(template.pageId)\" version \(template.version)")
        }
        remember(template, identity: identity)
        return template
    }

    /// The bytes of a version's file and the identity of the very file read (no link followed).
    private nonisolated func read(_ dir: DirectoryHandle, pageId: String, version: Int) throws(ArchiveError) -> (
        Data, FileIdentity
    ) {
        do throws(StorageError) {
            if let file = try dir.readFile(Self.fileName(version)) { return (file.data, file.identity) }
        } catch {
            throw .corrupt(pageId: pageId, version: version, reason: error.description)
        }
        // Listed a moment ago, gone now (removed from outside the daemon).
        throw .notFound(pageId: pageId, version: version)
    }

    /// The file of a version as stored (for export), after checking it loads.
    public func exportData(pageId: String, version: Int? = nil) throws(ArchiveError) -> Data {
        let template = try load(pageId: pageId, version: version)
        guard let dir = try directory(pageId) else { throw .notFound(pageId: pageId, version: template.version) }
        let (data, _) = try read(dir, pageId: pageId, version: template.version)
        do {
            _ = try TemplateFile.summary(data)
        } catch {
            throw .corrupt(pageId: pageId, version: template.version, reason: error.reason)
        }
        return data
    }

    /// Every version of a page, newest first; reads each file's checked summary, not its entries.
    public func list(pageId: String) throws(ArchiveError) -> [TemplateListing] {
        var listings: [TemplateListing] = []
        guard let dir = try directory(pageId) else { return [] }
        for v in versionNumbers(in: dir).reversed() {
            do {
                let (data, _) = try read(dir, pageId: pageId, version: v)
                let s = try TemplateFile.summary(data)
                guard s.pageId == pageId, s.version == v else {
                    throw ArchiveError.corrupt(
                        pageId: pageId, version: v, reason: "file holds page \"\(s.pageId)\" version \(s.version)")
                }
                listings.append(
                    TemplateListing(
                        pageId: pageId, version: v, capturedAt: s.capturedAt, sourceDevice: s.source, entryCount: s.entries,
                        checksumOK: true, problem: nil))
            } catch let error as TemplateFileError {
                listings.append(
                    TemplateListing(
                        pageId: pageId, version: v, capturedAt: nil, sourceDevice: nil, entryCount: nil, checksumOK: false,
                        problem: error.reason))
            } catch let error as ArchiveError {
                guard case .corrupt(pageId: _, version: _, let reason) = error else { throw error }
                listings.append(
                    TemplateListing(
                        pageId: pageId, version: v, capturedAt: nil, sourceDevice: nil, entryCount: nil, checksumOK: false,
                        problem: reason))
            } catch {
                throw .corrupt(pageId: pageId, version: v, reason: "\(error)")
            }
        }
        return listings
    }
}

/// Why the archive could not do what was asked.
public enum ArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A page id that is not a safe name (could escape the data directory).
    case invalidName(String)
    /// No such page template or version.
    case notFound(pageId: String, version: Int?)
    /// The file exists but cannot be used.
    case corrupt(pageId: String, version: Int, reason: String)
    /// An imported file that is not a valid template.
    case invalidImport(String)
    /// An imported template of another page.
    case wrongPage(expected: String, found: String)
    case storage(StorageError)
    /// The template is archived (in place, served as the latest) but the directory fsync that makes it durable
    /// failed: a power loss could still lose it.
    case notDurable(Template, StorageError)

    public var description: String {
        switch self {
        case .invalidName(let n): return "invalid page id \"\(n)\": only [A-Za-z0-9][A-Za-z0-9._-]* (max 64) is allowed"
        case .notFound(let p, nil): return "no template archived for page \"\(p)\""
        case .notFound(let p, let v?): return "page \"\(p)\" has no template version \(v)"
        case .corrupt(let p, let v, let r): return "template \"\(p)\" version \(v) is corrupt: \(r)"
        case .invalidImport(let r): return "cannot import template: \(r)"
        case .wrongPage(let expected, let found): return "the file is a template of page \"\(found)\", not \"\(expected)\""
        case .storage(let e): return e.description
        case .notDurable(let t, let e):
            return
                "archived as version \(t.version), but not confirmed durable (\(e)): a power loss could still lose this version"
        }
    }
}
