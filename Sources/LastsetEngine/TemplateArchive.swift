import Foundation
import LastsetCore
import ModbusLink

/// The templates under `<data>/templates/<pageId>/v000001.json …`: versioned, checksummed, written
/// durably, pruned to the history limit. Every name is checked before it becomes a path.
public actor TemplateArchive {
    public nonisolated let root: URL
    public let historyLimit: Int
    private let executor = DispatchQueueExecutor(label: "lastset.archive")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens (creating) the archive under the data directory and removes debris of interrupted writes.
    public init(dataDirectory: URL, historyLimit: Int = 20) throws(ArchiveError) {
        root = dataDirectory.appendingPathComponent("templates", isDirectory: true)
        self.historyLimit = max(1, historyLimit)
        do {
            try DurableFile.makeDirectory(root)
        } catch {
            throw .storage(error)
        }
        for page in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [] where SafeName.isValid(page) {
            _ = DurableFile.removeDebris(in: root.appendingPathComponent(page, isDirectory: true))
        }
    }

    private func directory(_ pageId: String) throws(ArchiveError) -> URL {
        guard SafeName.isValid(pageId) else { throw .invalidName(pageId) }
        return root.appendingPathComponent(pageId, isDirectory: true)
    }

    private nonisolated static func fileName(_ version: Int) -> String { String(format: "v%06d.json", version) }

    /// Versions present on disk for a page, ascending (corrupt files included). Read with readdir:
    /// FileManager's listing costs more than the rest of storing a small template.
    private func versionNumbers(_ pageId: String) throws(ArchiveError) -> [Int] {
        let dir = try directory(pageId)
        guard let handle = opendir(dir.path) else { return [] }
        defer { closedir(handle) }
        var versions: [Int] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name.hasPrefix("v"), name.hasSuffix(".json"), name.count == 12, let v = Int(name.dropFirst().dropLast(5)) else {
                continue
            }
            versions.append(v)
        }
        return versions.sorted()
    }

    /// Archives a template as the page's next version; returns it with its version number set.
    public func store(_ template: Template) throws(ArchiveError) -> Template {
        let dir = try directory(template.pageId)
        if mkdir(dir.path, 0o750) != 0 && errno != EEXIST {
            throw .storage(StorageError(operation: "create directory", path: dir.path, errno: errno))
        }
        let existing = try versionNumbers(template.pageId)
        var stored = template.roundedToMilliseconds()
        stored.version = (existing.last ?? 0) + 1
        let url = dir.appendingPathComponent(Self.fileName(stored.version))
        // One directory fsync makes both the new version's rename and the pruning of old ones durable.
        do {
            try DurableFile.write(TemplateFile.encode(stored), to: url, syncDirectory: false)
            prune(template.pageId, in: dir, versions: existing + [stored.version])
            try DurableFile.syncDirectory(dir.path)
        } catch {
            throw .storage(error)
        }
        remember(stored, at: url)
        return stored
    }

    /// Removes the oldest versions beyond the history limit (the caller fsyncs the directory).
    private func prune(_ pageId: String, in dir: URL, versions: [Int]) {
        guard versions.count > historyLimit else { return }
        for v in versions.prefix(versions.count - historyLimit) {
            unlink(dir.appendingPathComponent(Self.fileName(v)).path)
            cache[Self.cacheKey(pageId, v)] = nil
        }
    }

    // MARK: Decoded-template cache
    //
    // Provisioning replays the same template to many machines: decoding it each time would cost more
    // than the wire. A cached template is used only while its file is the very file it came from
    // (same inode, size and modification time) and its checksum still holds; otherwise a fresh load.

    private struct FileIdentity: Equatable {
        var inode: UInt64
        var size: Int64
        var modified: Int64
    }

    private var cache: [String: (identity: FileIdentity, template: Template, used: UInt64)] = [:]
    private var clock: UInt64 = 0
    /// Decoded templates kept in memory.
    private let cacheLimit = 8

    private nonisolated static func cacheKey(_ pageId: String, _ version: Int) -> String { "\(pageId)/\(version)" }

    private nonisolated static func identity(_ url: URL) -> FileIdentity? {
        var st = stat()
        guard stat(url.path, &st) == 0 else { return nil }
        return FileIdentity(
            inode: UInt64(st.st_ino), size: Int64(st.st_size),
            modified: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
    }

    private func remember(_ template: Template, at url: URL) {
        guard let id = Self.identity(url) else { return }
        clock += 1
        cache[Self.cacheKey(template.pageId, template.version)] = (id, template, clock)
        if cache.count > cacheLimit, let oldest = cache.min(by: { $0.value.used < $1.value.used })?.key {
            cache[oldest] = nil
        }
    }

    /// The given version, or the latest when `version` is nil. A corrupt file is refused, never skipped.
    public func load(pageId: String, version: Int? = nil) throws(ArchiveError) -> Template {
        let versions = try versionNumbers(pageId)
        guard let v = version ?? versions.last else { throw .notFound(pageId: pageId, version: nil) }
        guard v >= 1, versions.contains(v) else { throw .notFound(pageId: pageId, version: v) }
        let url = try directory(pageId).appendingPathComponent(Self.fileName(v))
        let key = Self.cacheKey(pageId, v)
        let data = try read(url, pageId: pageId, version: v)
        if let hit = cache[key], hit.identity == Self.identity(url) {
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
        remember(template, at: url)
        return template
    }

    private func read(_ url: URL, pageId: String, version: Int) throws(ArchiveError) -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw .corrupt(pageId: pageId, version: version, reason: "cannot read \(url.path): \(error.localizedDescription)")
        }
    }

    /// The file of a version as stored (for export), after checking it loads.
    public func exportData(pageId: String, version: Int? = nil) throws(ArchiveError) -> Data {
        let template = try load(pageId: pageId, version: version)
        let url = try directory(pageId).appendingPathComponent(Self.fileName(template.version))
        let data = try read(url, pageId: pageId, version: template.version)
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
        let dir = try directory(pageId)
        for v in try versionNumbers(pageId).reversed() {
            do {
                let data = try read(dir.appendingPathComponent(Self.fileName(v)), pageId: pageId, version: v)
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

    public var description: String {
        switch self {
        case .invalidName(let n): return "invalid page id \"\(n)\": only [A-Za-z0-9][A-Za-z0-9._-]* (max 64) is allowed"
        case .notFound(let p, nil): return "no template archived for page \"\(p)\""
        case .notFound(let p, let v?): return "page \"\(p)\" has no template version \(v)"
        case .corrupt(let p, let v, let r): return "template \"\(p)\" version \(v) is corrupt: \(r)"
        case .invalidImport(let r): return "cannot import template: \(r)"
        case .wrongPage(let expected, let found): return "the file is a template of page \"\(found)\", not \"\(expected)\""
        case .storage(let e): return e.description
        }
    }
}
