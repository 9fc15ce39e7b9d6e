import Foundation
import LastsetCore
import LastsetStore

/// The template versions: rows of `template_version` in the data directory's database, each holding the
/// checksummed template file byte for byte as `export` writes it (`TemplateFile`), pruned to the history limit.
///
/// Without a fleet a version is `(page, "", n)` (id `n`); with a fleet host set, this host numbers only its own
/// versions and each carries its host and archive time (id `line-7-3`; see `TemplateVersion`). A deleted version
/// leaves its number in `template_deleted` (the deleted marker), so the number is never given again; a pruned one
/// needs none (this host's newest version is never pruned). A version is archived in the same commit as its audit
/// record (`store(_:record:)`): both or neither.
public actor TemplateArchive {
    public let historyLimit: Int
    /// This host's fleet name; nil without a fleet.
    public nonisolated let host: String?
    /// The database holding the versions.
    public nonisolated let database: Database

    /// The host column of this host's versions ("" without a fleet).
    private nonisolated var hostKey: String { host ?? "" }

    /// Opens the archive in `database`. With a fleet `host`, versions made before the fleet are given this host's
    /// name (`3` → id `<host>-3`, archive time = capture time: the number keeps meaning the same template here),
    /// in one commit.
    public init(database: Database, historyLimit: Int = 20, host: String? = nil, cacheEntryLimit: Int = 16_000)
        throws(ArchiveError)
    {
        self.cacheEntryLimit = cacheEntryLimit
        self.historyLimit = max(1, historyLimit)
        if let host, !SafeName.isValid(host) { throw .invalidName(host) }
        self.host = host
        self.database = database
        if let host { try Self.nameLegacyVersions(in: database, host: host) }
    }

    /// Gives this host's name and an archive time (its capture time) to every version made before the fleet (its
    /// file re-encoded: host and archive time are inside the checksummed content), and to the deleted markers of
    /// such versions. A corrupt one stays as it is (listed with its reason).
    private static func nameLegacyVersions(in database: Database, host: String) throws(ArchiveError) {
        do {
            try database.writeNow { c in
                var legacy: [(Int64, String, Int, Data)] = []
                try c.rows("SELECT rowid, page_id, number, file FROM template_version WHERE host = ''") { row in
                    legacy.append((row.int64(0), row.text(1) ?? "", row.int(2) ?? 0, row.data(3) ?? Data()))
                    return true
                }
                for (rowid, pageId, number, file) in legacy {
                    guard let decoded = try? TemplateFile.decode(file), decoded.pageId == pageId, decoded.version == number,
                        decoded.host == nil
                    else { continue }
                    var t = decoded
                    let taken =
                        try c.first(
                            "SELECT 1 FROM template_version WHERE page_id = ? AND host = ? AND number = ?", .text(pageId),
                            .text(host), .integer(number)
                        ) { _ in true } ?? false
                    if !taken {
                        t.host = host
                        t.archivedAt = TemplateVersion.milliseconds(t.capturedAt)
                        try c.run(
                            "INSERT INTO template_version (page_id, host, number, archived_at, file) VALUES (?, ?, ?, ?, ?)",
                            .text(pageId), .text(host), .integer(number),
                            .integer(RecordStore.milliseconds(t.capturedAt)), .blob(TemplateFile.encode(t)))
                    }
                    try c.run("DELETE FROM template_version WHERE rowid = ?", .integer(rowid))
                }
                try c.run(
                    "INSERT OR IGNORE INTO template_deleted (page_id, host, number, deleted_at) SELECT page_id, ?, number, deleted_at FROM template_deleted WHERE host = ''",
                    .text(host))
                try c.run("DELETE FROM template_deleted WHERE host = ''")
            }
        } catch {
            throw .storage(StorageError.of(error, database.path))
        }
    }

    private nonisolated func checkName(_ pageId: String) throws(ArchiveError) {
        guard SafeName.isValid(pageId) else { throw .invalidName(pageId) }
    }

    /// The versions of a page, oldest first in fleet order (corrupt ones included: they are refused when read,
    /// never skipped).
    static func versions(_ c: Connection, _ pageId: String) throws(DatabaseError) -> [TemplateVersion] {
        var out: [TemplateVersion] = []
        try c.rows("SELECT host, number, archived_at FROM template_version WHERE page_id = ?", .text(pageId)) { row in
            out.append(version(host: row.text(0), number: row.int(1), archivedAt: row.int(2)))
            return true
        }
        return out.sorted()
    }

    private static func version(host: String?, number: Int?, archivedAt: Int?) -> TemplateVersion {
        let host = host ?? ""
        return TemplateVersion(
            number: number ?? 0, host: host.isEmpty ? nil : host,
            archivedAt: archivedAt.map { RecordStore.date(milliseconds: Int64($0)) })
    }

    /// The version a reference names, among `all` (oldest first).
    private static func resolve(_ ref: TemplateVersionRef, pageId: String, in all: [TemplateVersion], localHost: String?)
        throws(ArchiveError) -> TemplateVersion
    {
        if case .latest = ref {
            guard let v = all.last else { throw .notFound(pageId: pageId, version: nil) }
            return v
        }
        guard let v = all.last(where: { ref.names($0, localHost: localHost) }) else {
            throw .notFound(pageId: pageId, version: ref.description)
        }
        return v
    }

    /// One read: the version `ref` names and, when `withFile`, its stored file (nil when it was not asked for).
    private func resolved(pageId: String, _ ref: TemplateVersionRef, withFile: Bool) async throws(ArchiveError) -> (
        TemplateVersion, Data?
    ) {
        try checkName(pageId)
        let localHost = host
        let outcome: Result<(TemplateVersion, Data?), ArchiveError>
        do {
            outcome = try await database.read { c in
                let all = try Self.versions(c, pageId)
                let v: TemplateVersion
                do throws(ArchiveError) {
                    v = try Self.resolve(ref, pageId: pageId, in: all, localHost: localHost)
                } catch {
                    return .failure(error)
                }
                guard withFile else { return .success((v, nil)) }
                let file = try c.first(
                    "SELECT file FROM template_version WHERE page_id = ? AND host = ? AND number = ?", .text(pageId),
                    .text(v.host ?? ""), .integer(v.number)
                ) { $0.data(0) ?? Data() }
                return .success((v, file ?? Data()))
            }
        } catch {
            throw .storage(StorageError.of(error, database.path))
        }
        return try outcome.get()
    }

    // MARK: Numbers

    /// The highest number handed out per page for this host's versions: the greatest of its versions and its
    /// deleted markers, read on first use. A number is reserved before the template is encoded (the number is
    /// inside its checksummed content), off the writer's queue; the commit then inserts it (the primary key
    /// refuses a number already taken).
    private var lastNumber: [String: Int] = [:]

    private func reserveNumber(_ pageId: String) async throws(ArchiveError) -> Int {
        if lastNumber[pageId] == nil {
            let stored = try await storedHighestNumber(pageId: pageId)
            // Another store may have reserved one while this one read.
            lastNumber[pageId] = max(lastNumber[pageId] ?? 0, stored)
        }
        let next = (lastNumber[pageId] ?? 0) + 1
        lastNumber[pageId] = next
        return next
    }

    /// The highest number this host handed out for a page (its versions and its deleted markers; 0 when none): a
    /// version of this host with a greater number was never made here.
    public func highestNumber(pageId: String) async throws(ArchiveError) -> Int {
        let stored = try await storedHighestNumber(pageId: pageId)
        return max(stored, lastNumber[pageId] ?? 0)
    }

    private func storedHighestNumber(pageId: String) async throws(ArchiveError) -> Int {
        let key = hostKey
        do {
            return try await database.read { c in
                try c.first(
                    """
                    SELECT max(coalesce((SELECT max(number) FROM template_version WHERE page_id = ?1 AND host = ?2), 0),
                               coalesce((SELECT max(number) FROM template_deleted WHERE page_id = ?1 AND host = ?2), 0))
                    """, .text(pageId), .text(key)
                ) { $0.int(0) ?? 0 } ?? 0
            }
        } catch {
            throw .storage(StorageError.of(error, database.path))
        }
    }

    /// Gives a reserved number back when its commit failed and no later one was handed out.
    private func release(_ number: Int, pageId: String) {
        if lastNumber[pageId] == number { lastNumber[pageId] = number - 1 }
    }

    // MARK: Writes

    /// Archives a template as the page's next version (this host's next number) and returns it with its version
    /// (and, in a fleet, host and archive time) set. `record` makes the audit record of that outcome from the
    /// stored template: the version, its record and the pruning of versions past the history limit are one commit
    /// (one fsync). Any error means nothing was archived and nothing recorded.
    public func store(_ template: Template, record: (@Sendable (Template) -> AuditRecord)? = nil) async throws(ArchiveError)
        -> Template
    {
        try checkName(template.pageId)
        var stored = template.roundedToMilliseconds()
        stored.version = try await reserveNumber(template.pageId)
        stored.host = host
        stored.archivedAt = host == nil ? nil : TemplateVersion.milliseconds(Date())
        // Encoded here, on the caller's task: the writer's queue only inserts.
        let file = TemplateFile.encode(stored)
        let row = record.map { AuditLog.Row($0(stored)) }
        let (pageId, hostKey, number, limit, keepHost) = (stored.pageId, self.hostKey, stored.version, historyLimit, host)
        let archivedAt = stored.archivedAt.map(RecordStore.milliseconds)
        let pruned: [TemplateVersion]
        do {
            pruned = try await database.write { c in
                try c.run(
                    "INSERT INTO template_version (page_id, host, number, archived_at, file) VALUES (?, ?, ?, ?, ?)",
                    .text(pageId), .text(hostKey), .integer(number), archivedAt.map { .integer($0) } ?? .null, .blob(file))
                let pruned = try Self.prune(c, pageId: pageId, limit: limit, keepHost: keepHost)
                if let row { try AuditLog.insert(row, on: c) }
                return pruned
            }
        } catch {
            release(number, pageId: pageId)
            throw .storage(StorageError.of(error, database.path))
        }
        for v in pruned { forget(Self.cacheKey(pageId, v)) }
        remember(stored)
        return stored
    }

    /// Removes the oldest versions beyond the history limit, inside the caller's transaction; returns them. This
    /// host's newest version is always kept (it carries the host's numbering).
    private static func prune(_ c: Connection, pageId: String, limit: Int, keepHost: String?) throws(DatabaseError)
        -> [TemplateVersion]
    {
        let all = try versions(c, pageId)
        guard all.count > limit else { return [] }
        let keep = all.last { $0.host == keepHost }
        var excess = all.count - limit
        var removed: [TemplateVersion] = []
        for v in all where excess > 0 && v != keep {
            try c.run(
                "DELETE FROM template_version WHERE page_id = ? AND host = ? AND number = ?", .text(pageId),
                .text(v.host ?? ""), .integer(v.number))
            removed.append(v)
            excess -= 1
        }
        return removed
    }

    /// What `adopt` did with a template file from another host.
    public enum Adoption: Sendable, Hashable {
        /// Archived as a new version.
        case added(TemplateVersion)
        /// The very same file was already here.
        case present(TemplateVersion)
        /// Not archived: the version was deleted here (its deleted marker: a delete, or another host's tombstone).
        case deleted(TemplateVersion)
    }

    /// Archives a fleet template file under its own name, as fetched: its checksum, page, host, number and
    /// archive time must match the name, and no other version may carry its id (an id never changes meaning).
    /// Nothing is written when any check fails.
    public func adopt(_ data: Data, fileName: String, pageId: String) async throws(ArchiveError) -> Adoption {
        guard let version = TemplateVersion.parse(fileName: fileName), let vHost = version.host else {
            throw .invalidImport("\"\(fileName)\" is not the name of a fleet template version")
        }
        try checkName(pageId)
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
        let (limit, keepHost) = (historyLimit, host)
        let archivedAt = version.archivedAt.map(RecordStore.milliseconds)
        let outcome: Result<(Adoption, [TemplateVersion]), ArchiveError>
        do {
            outcome = try await database.write { c in
                let existing = try c.first(
                    "SELECT archived_at, file FROM template_version WHERE page_id = ? AND host = ? AND number = ?",
                    .text(pageId), .text(vHost), .integer(version.number)
                ) { row in (row.int(0), row.data(1)) }
                let marked = try c.first(
                    "SELECT 1 FROM template_deleted WHERE page_id = ? AND host = ? AND number = ?", .text(pageId),
                    .text(vHost), .integer(version.number)
                ) { _ in true } ?? false
                if marked && existing == nil { return .success((.deleted(version), [])) }
                if let (at, file) = existing {
                    if at.map(Int64.init) == archivedAt, file == data { return .success((.present(version), [])) }
                    let same = Self.version(host: vHost, number: version.number, archivedAt: at)
                    return .failure(
                        .conflict(
                            pageId: pageId, version: version.id,
                            reason:
                                "this archive already holds another template with that id (\(same.fileName)); two hosts may share one fleet host name"
                        ))
                }
                try c.run(
                    "INSERT INTO template_version (page_id, host, number, archived_at, file) VALUES (?, ?, ?, ?, ?)",
                    .text(pageId), .text(vHost), .integer(version.number), archivedAt.map { .integer($0) } ?? .null,
                    .blob(data))
                return .success((.added(version), try Self.prune(c, pageId: pageId, limit: limit, keepHost: keepHost)))
            }
        } catch {
            throw .storage(StorageError.of(error, database.path))
        }
        let (adoption, pruned) = try outcome.get()
        for v in pruned { forget(Self.cacheKey(pageId, v)) }
        return adoption
    }

    /// The version a reference names (`.latest`, a number, a fleet id), without reading it: a corrupt version
    /// resolves too, so it can be deleted.
    public func resolveVersion(pageId: String, _ ref: TemplateVersionRef) async throws(ArchiveError) -> TemplateVersion {
        try await resolved(pageId: pageId, ref, withFile: false).0
    }

    /// Removes one version (the next latest is the version before it) and leaves its deleted marker, so its
    /// number is never given again. `record` (the audit record of the deletion) is in the same commit: the
    /// removal and its record, both or neither.
    public func remove(
        pageId: String, version ref: TemplateVersionRef, record: (@Sendable (TemplateVersion) -> AuditRecord)? = nil
    ) async throws(ArchiveError) -> TemplateVersion {
        let v = try await resolveVersion(pageId: pageId, ref)
        let row = record.map { AuditLog.Row($0(v)) }
        let now = RecordStore.milliseconds(Date())
        let removed: Bool
        do {
            removed = try await database.write { c in
                let n = try c.run(
                    "DELETE FROM template_version WHERE page_id = ? AND host = ? AND number = ?", .text(pageId),
                    .text(v.host ?? ""), .integer(v.number))
                guard n == 1 else { return false }
                try c.run(
                    "INSERT OR IGNORE INTO template_deleted (page_id, host, number, deleted_at) VALUES (?, ?, ?, ?)",
                    .text(pageId), .text(v.host ?? ""), .integer(v.number), .integer(now))
                if let row { try AuditLog.insert(row, on: c) }
                return true
            }
        } catch {
            throw .storage(StorageError.of(error, database.path))
        }
        forget(Self.cacheKey(pageId, v))
        // Removed by another request since it was resolved.
        guard removed else { throw .notFound(pageId: pageId, version: v.id) }
        return v
    }

    /// Honours a delete made on another host (its fleet record, the version's tombstone): removes the version
    /// when it is here and leaves its deleted marker either way, so it is never adopted again. `record` (this host's
    /// audit record of the removal) is in the same commit, written only when a version was removed. Returns whether
    /// one was.
    public func markDeleted(
        pageId: String, host vHost: String, number: Int, at: Date, record: AuditRecord
    ) async throws(ArchiveError) -> Bool {
        try checkName(pageId)
        let row = AuditLog.Row(record)
        let when = RecordStore.milliseconds(at)
        let removed: [TemplateVersion]
        do {
            removed = try await database.write { c in
                var gone: [TemplateVersion] = []
                try c.rows(
                    "SELECT archived_at FROM template_version WHERE page_id = ? AND host = ? AND number = ?", .text(pageId),
                    .text(vHost), .integer(number)
                ) { r in
                    gone.append(Self.version(host: vHost, number: number, archivedAt: r.int(0)))
                    return true
                }
                try c.run(
                    "DELETE FROM template_version WHERE page_id = ? AND host = ? AND number = ?", .text(pageId), .text(vHost),
                    .integer(number))
                try c.run(
                    "INSERT OR IGNORE INTO template_deleted (page_id, host, number, deleted_at) VALUES (?, ?, ?, ?)",
                    .text(pageId), .text(vHost), .integer(number), .integer(when))
                if !gone.isEmpty { try AuditLog.insert(row, on: c) }
                return gone
            }
        } catch {
            throw .storage(StorageError.of(error, database.path))
        }
        for v in removed { forget(Self.cacheKey(pageId, v)) }
        return !removed.isEmpty
    }

    // MARK: Decoded-template cache
    //
    // Provisioning replays the same template to many machines: decoding it each time would cost more than the
    // wire. A version's row is never changed by the daemon once written (only deleted), so a decoded template
    // is kept while its version exists; its stored bytes are still read and their checksum checked on every
    // load (a row changed from outside, or bytes gone bad on the disk, are refused as they would be uncached).

    private var cache: [String: (template: Template, used: UInt64)] = [:]
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

    private func remember(_ template: Template) {
        clock += 1
        let key = Self.cacheKey(template.pageId, template.versionId)
        forget(key)
        cache[key] = (template, clock)
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

    // MARK: Reads

    /// The given version, or the latest when `version` is nil. A corrupt one is refused, never skipped.
    public func load(pageId: String, version ref: TemplateVersionRef? = nil) async throws(ArchiveError) -> Template {
        let (v, stored) = try await resolved(pageId: pageId, ref ?? .latest, withFile: true)
        let data = stored ?? Data()
        let key = Self.cacheKey(pageId, v)
        if let hit = cache[key] {
            // The checksum is still checked on every load; only the decoding is skipped.
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
        let template = try Self.decode(data, pageId: pageId, version: v)
        remember(template)
        return template
    }

    private static func decode(_ data: Data, pageId: String, version v: TemplateVersion) throws(ArchiveError) -> Template {
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
        return template
    }

    /// The checksum of the file of the version `versionId` names (as an audit record names it), or why there is
    /// none now: a certificate's "template file" line.
    public func fileCheck(pageId: String, versionId: String?) async -> TemplateFileCheck {
        guard let versionId, let ref = TemplateVersionRef.parse(versionId) else {
            return .unavailable("the record names no version")
        }
        do {
            return .checksum(try TemplateFile.checksum(try await exportData(pageId: pageId, version: ref)))
        } catch let error as ArchiveError {
            return .unavailable(error.description)
        } catch {
            return .unavailable("\(error)")
        }
    }

    /// The file of a version as stored (for export), after checking it loads.
    public func exportData(pageId: String, version ref: TemplateVersionRef? = nil) async throws(ArchiveError) -> Data {
        let (v, stored) = try await resolved(pageId: pageId, ref ?? .latest, withFile: true)
        let data = stored ?? Data()
        _ = try Self.decode(data, pageId: pageId, version: v)
        return data
    }

    /// The file names (`TemplateVersion.fileName`) of a page's versions archived by `host`: the names the fleet's
    /// repository carries them under.
    public func fileNames(pageId: String, host: String?) async throws(ArchiveError) -> [String] {
        try checkName(pageId)
        do {
            return try await database.read { c in try Self.versions(c, pageId) }.filter { $0.host == host }.map(\.fileName)
        } catch {
            throw .storage(StorageError.of(error, database.path))
        }
    }

    /// The stored file of a version by its file name (nil when there is none).
    public func fileData(pageId: String, fileName: String) async throws(ArchiveError) -> Data? {
        guard let version = TemplateVersion.parse(fileName: fileName) else { return nil }
        try checkName(pageId)
        do {
            return try await database.read { c in
                try c.first(
                    "SELECT archived_at, file FROM template_version WHERE page_id = ? AND host = ? AND number = ?",
                    .text(pageId), .text(version.host ?? ""), .integer(version.number)
                ) { row -> Data? in
                    let v = Self.version(host: version.host, number: version.number, archivedAt: row.int(0))
                    return v == version ? row.data(1) : nil
                } ?? nil
            }
        } catch {
            throw .storage(StorageError.of(error, database.path))
        }
    }

    /// Page ids with a version in the archive.
    public func pageIds() async throws(ArchiveError) -> [String] {
        do {
            return try await database.read { c in
                var out: [String] = []
                try c.rows("SELECT DISTINCT page_id FROM template_version ORDER BY page_id") { row in
                    if let p = row.text(0) { out.append(p) }
                    return true
                }
                return out
            }
        } catch {
            throw .storage(StorageError.of(error, database.path))
        }
    }

    /// Every version of a page, newest first; reads each file's checked summary, not its entries.
    public func list(pageId: String) async throws(ArchiveError) -> [TemplateListing] {
        try checkName(pageId)
        let rows: [(TemplateVersion, Data)]
        do {
            rows = try await database.read { c in
                var out: [(TemplateVersion, Data)] = []
                try c.rows("SELECT host, number, archived_at, file FROM template_version WHERE page_id = ?", .text(pageId)) {
                    row in
                    out.append(
                        (Self.version(host: row.text(0), number: row.int(1), archivedAt: row.int(2)), row.data(3) ?? Data()))
                    return true
                }
                return out
            }
        } catch {
            throw .storage(StorageError.of(error, database.path))
        }
        var listings: [TemplateListing] = []
        for (v, data) in rows.sorted(by: { $0.0 > $1.0 }) {
            func broken(_ reason: String) -> TemplateListing {
                TemplateListing(
                    pageId: pageId, version: v.number, capturedAt: nil, sourceDevice: nil, entryCount: nil, checksumOK: false,
                    problem: reason, host: v.host, archivedAt: v.archivedAt)
            }
            do {
                let s = try TemplateFile.summary(data)
                let named = TemplateVersion(number: s.version, host: s.host, archivedAt: s.archivedAt)
                guard s.pageId == pageId, named == v else {
                    listings.append(broken("file holds page \"\(s.pageId)\" version \(named.fileName)"))
                    continue
                }
                listings.append(
                    TemplateListing(
                        pageId: pageId, version: v.number, capturedAt: s.capturedAt, sourceDevice: s.source,
                        entryCount: s.entries, checksumOK: true, problem: nil, host: v.host, archivedAt: v.archivedAt,
                        pageHash: s.pageHash))
            } catch {
                listings.append(broken(error.reason))
            }
        }
        return listings
    }
}

/// Why the archive could not do what was asked.
public enum ArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A page id that is not a safe name.
    case invalidName(String)
    /// No such page template or version (the version as asked for: `3`, `line-7-3`).
    case notFound(pageId: String, version: String?)
    /// The version is stored but cannot be used.
    case corrupt(pageId: String, version: String, reason: String)
    /// A fleet version whose id already names another template here.
    case conflict(pageId: String, version: String, reason: String)
    /// An imported file that is not a valid template.
    case invalidImport(String)
    /// An imported template of another page.
    case wrongPage(expected: String, found: String)
    /// A template whose entries do not fit the page (`TemplateAdmission`): each refused entry, with why.
    case notAdmissible(pageId: String, [EntryRefusal])
    /// The database could not be read or written: for a write, nothing was archived and nothing recorded.
    case storage(StorageError)
    /// Nothing was archived (the first error) and the audit record of that failure could not be written
    /// either: the audit log holds no record of the attempt.
    indirect case failureUnaudited(ArchiveError, StorageError)

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
        case .failureUnaudited(let failure, let e):
            return
                "\(failure); nothing was changed, and its failed record could not be written (\(e)): the audit log holds no record of this attempt"
        }
    }
}
