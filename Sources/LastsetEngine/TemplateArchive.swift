import Foundation
import LastsetCore
import ModbusLink

/// The templates under `<data>/templates/<pageId>/v000001.json …`: versioned, checksummed, written
/// durably, pruned to the history limit. Every name is checked before it becomes a path.
public actor TemplateArchive {
    public let root: URL
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

    /// Versions present on disk for a page, ascending (corrupt files included).
    private func versionNumbers(_ pageId: String) throws(ArchiveError) -> [Int] {
        let dir = try directory(pageId)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.compactMap { name -> Int? in
            guard name.hasPrefix("v"), name.hasSuffix(".json"), name.count == 12 else { return nil }
            return Int(name.dropFirst().dropLast(5))
        }.sorted()
    }

    /// Archives a template as the page's next version; returns it with its version number set.
    public func store(_ template: Template) throws(ArchiveError) -> Template {
        let dir = try directory(template.pageId)
        do {
            try DurableFile.makeDirectory(dir)
        } catch {
            throw .storage(error)
        }
        var stored = template
        stored.version = (try versionNumbers(template.pageId).last ?? 0) + 1
        let data: Data
        do {
            data = try TemplateFile.encode(stored)
            stored = try TemplateFile.decode(data)
        } catch {
            throw .corrupt(pageId: template.pageId, version: stored.version, reason: "cannot encode: \(error)")
        }
        do {
            try DurableFile.write(data, to: dir.appendingPathComponent(Self.fileName(stored.version)))
        } catch {
            throw .storage(error)
        }
        try prune(template.pageId)
        return stored
    }

    private func prune(_ pageId: String) throws(ArchiveError) {
        let versions = try versionNumbers(pageId)
        guard versions.count > historyLimit else { return }
        let dir = try directory(pageId)
        for v in versions.prefix(versions.count - historyLimit) {
            unlink(dir.appendingPathComponent(Self.fileName(v)).path)
        }
        do {
            try DurableFile.syncDirectory(dir.path)
        } catch {
            throw .storage(error)
        }
    }

    /// The given version, or the latest when `version` is nil. A corrupt file is refused, never skipped.
    public func load(pageId: String, version: Int? = nil) throws(ArchiveError) -> Template {
        let versions = try versionNumbers(pageId)
        guard let v = version ?? versions.last else { throw .notFound(pageId: pageId, version: nil) }
        guard v >= 1, versions.contains(v) else { throw .notFound(pageId: pageId, version: v) }
        let url = try directory(pageId).appendingPathComponent(Self.fileName(v))
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .corrupt(pageId: pageId, version: v, reason: "cannot read \(url.path): \(error.localizedDescription)")
        }
        let template: Template
        do {
            template = try TemplateFile.decode(data)
        } catch {
            throw .corrupt(pageId: pageId, version: v, reason: error.reason)
        }
        guard template.pageId == pageId, template.version == v else {
            throw .corrupt(pageId: pageId, version: v, reason: "file holds page \"\(template.pageId)\" version \(template.version)")
        }
        return template
    }

    /// The raw file of a version (for export), after checking it loads.
    public func exportData(pageId: String, version: Int? = nil) throws(ArchiveError) -> Data {
        let template = try load(pageId: pageId, version: version)
        do {
            return try TemplateFile.encode(template)
        } catch {
            throw .corrupt(pageId: pageId, version: template.version, reason: "\(error)")
        }
    }

    /// Every version of a page, newest first.
    public func list(pageId: String) throws(ArchiveError) -> [TemplateListing] {
        var listings: [TemplateListing] = []
        for v in try versionNumbers(pageId).reversed() {
            do {
                let t = try load(pageId: pageId, version: v)
                listings.append(
                    TemplateListing(
                        pageId: pageId, version: v, capturedAt: t.capturedAt, sourceDevice: t.source.deviceId ?? t.source.endpoint,
                        entryCount: t.entries.count, checksumOK: true, problem: nil))
            } catch {
                guard case .corrupt(pageId: _, version: _, let reason) = error else { throw error }
                listings.append(
                    TemplateListing(
                        pageId: pageId, version: v, capturedAt: nil, sourceDevice: nil, entryCount: nil, checksumOK: false, problem: reason))
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
