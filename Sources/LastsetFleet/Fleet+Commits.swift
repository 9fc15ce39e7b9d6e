import Foundation
import LastsetCore
import LastsetEngine
import LastsetFormats

/// The commits of this host: its versions, its delete and promote records, its audit records.
extension Fleet {
    // MARK: commits of this host

    /// Commits a version this host just archived (a capture or an import), authored by `who` on this
    /// host; pushed at the next sync. Returns a warning when the commit failed (the version is archived
    /// all the same, and the next sync commits it).
    public func record(_ template: Template, kind: AuditKind, who: String) async -> String? {
        await record(pageId: template.pageId, versionId: template.versionId.id, kind: kind, who: who)
    }

    /// `record` by page and version id (`<host>-<n>`).
    public func record(pageId: String, versionId: String, kind: AuditKind, who: String) async -> String? {
        do {
            guard
                let name = try await archive.fileNames(pageId: pageId, host: settings.host).first(where: {
                    TemplateVersion.parse(fileName: $0)?.id == versionId
                }), let data = try await archive.fileData(pageId: pageId, fileName: name)
            else {
                return "fleet: version \(versionId) of \(pageId) is not in the archive (pruned already?); nothing committed"
            }
            let relative = "templates/\(pageId)/\(name)"
            let target = tree.appendingPathComponent(relative)
            // Already committed by a sync's catch-up that ran first.
            if (try? Data(contentsOf: target)) == data { return nil }
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: target, options: .atomic)
            // The definition it was captured against travels with it (once per definition and host).
            var paths = [relative]
            if let summary = try? TemplateFile.summary(data),
                let definition = ownDefinition(pageId: pageId, pageHash: summary.pageHash),
                let path = try writeDefinition(definition)
            {
                paths.append(path)
            }
            try git.run(["add", "--"] + paths, timeout: settings.localTimeout)
            try commit("\(kind.rawValue) \(pageId) \(versionId)", who: who)
            // A promote's record follows in a commit of its own.
            if kind == .promote { _ = try await catchUpRecords() }
            return nil
        } catch {
            return
                "fleet: the \(kind.rawValue) of \(pageId) \(versionId) is archived but not yet committed (\(error)); the next sync commits it"
        }
    }

    func commit(_ subject: String, who: String?, trailer: String? = nil) throws(GitError) {
        var env: [String: String] = [:]
        if let who {
            let mail = who.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? String($0) : "-" }.joined()
            env["GIT_AUTHOR_NAME"] = "\(who) on \(settings.host)"
            env["GIT_AUTHOR_EMAIL"] = "\(mail)@\(settings.host)"
        }
        let message = subject + (trailer.map { "\n\n" + $0 } ?? "")
        try git.run(["commit", "-q", "--no-verify", "-m", message], timeout: settings.localTimeout, environment: env)
    }

    /// Copies into the repository every version of this host the archive has and the repository lacks,
    /// and commits them; returns their `page/id`.
    func catchUp() async throws(GitError) -> [String] {
        var added: [String] = []
        var paths: [String] = []
        let fm = FileManager.default
        let pages: [String]
        do {
            pages = try await archive.pageIds()
        } catch {
            throw .failed(arguments: ["add"], status: -1, message: "cannot list the archive's pages: \(error)")
        }
        for page in pages {
            let names: [String]
            do {
                names = try await archive.fileNames(pageId: page, host: settings.host)
            } catch {
                throw .failed(arguments: ["add"], status: -1, message: "cannot list the versions of \(page): \(error)")
            }
            for name in names {
                guard let v = TemplateVersion.parse(fileName: name) else { continue }
                let target = tree.appendingPathComponent("templates/\(page)/\(name)")
                guard !fm.fileExists(atPath: target.path) else { continue }
                let data: Data?
                do {
                    data = try await archive.fileData(pageId: page, fileName: name)
                } catch {
                    throw .failed(arguments: ["add"], status: -1, message: "cannot read \(page) \(v.id): \(error)")
                }
                guard let data else { continue }  // pruned or deleted since it was listed
                do {
                    try fm.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try data.write(to: target, options: .atomic)
                } catch {
                    throw .failed(
                        arguments: ["add"], status: -1, message: "cannot write \(target.path): \(error.localizedDescription)")
                }
                added.append("\(page)/\(v.id)")
                paths.append("templates/\(page)/\(name)")
            }
        }
        guard !added.isEmpty else { return [] }
        // Exactly the files written here: whatever else lies in the tree (a killed write's temporary) is
        // never committed.
        try git.run(["add", "--"] + paths, timeout: settings.localTimeout)
        try commit("catch up: \(added.count) version\(added.count == 1 ? "" : "s") of \(settings.host)", who: nil)
        return added
    }

    /// Commits the records of this host's deletes and promotes the repository does not have yet (right after a
    /// delete; a failure is left to the next sync). Returns a warning when it could not.
    public func publishRecords() async -> String? {
        do {
            _ = try await catchUpRecords()
            return nil
        } catch {
            return "fleet: a delete or promote record is not yet committed (\(error)); the next sync commits it"
        }
    }

    /// Writes and commits, one commit each (authored by who did it), a record for every delete and promote in this
    /// host's audit log that the repository lacks: a delete of a version no record in the repository deletes yet
    /// (another host's tombstone honoured here needs none of its own), a promote of this host without its record.
    /// Read by the audit log's kind index, so only deletes and promotes are read. Returns their summaries.
    func catchUpRecords() async throws(GitError) -> [String] {
        let wanted = try await recordsInAuditLog()
        var written: [String] = []
        var seen = Set<String>()
        for record in wanted where seen.insert(record.path).inserted && !hasRecord(for: record) {
            let target = tree.appendingPathComponent(record.path)
            do {
                try FileManager.default.createDirectory(
                    at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try record.encoded().write(to: target, options: .atomic)
            } catch {
                throw .failed(
                    arguments: ["add"], status: -1, message: "cannot write \(target.path): \(error.localizedDescription)")
            }
            try git.run(["add", "--", record.path], timeout: settings.localTimeout)
            try commit("\(record.kind.rawValue) \(record.pageId) \(record.versionId): \(record.reason)", who: record.who)
            written.append(record.summary)
        }
        return written
    }

    /// The fleet records this host's audit log makes of its deletes and promotes (read by the log's kind index).
    func recordsInAuditLog() async throws(GitError) -> [FleetRecord] {
        do {
            let filter = AuditFilter(results: [.deleted, .archived], kinds: [.delete, .promote])
            return try await audit.read(limit: Int.max, matching: filter).records.compactMap {
                FleetRecord.from($0, host: settings.host)
            }
        } catch {
            throw .failed(arguments: ["add"], status: -1, message: "cannot read the audit log: \(error)")
        }
    }

    /// Whether the repository holds a record that covers `record`: for a delete, any host's tombstone of the
    /// version; for a promote, its own record.
    private func hasRecord(for record: FleetRecord) -> Bool {
        let folder = tree.appendingPathComponent("\(FleetRecord.folder)/\(record.pageId)")
        switch record.kind {
        case .promote:
            return FileManager.default.fileExists(atPath: folder.appendingPathComponent(record.name.fileName).path)
        case .delete:
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.contains {
                FleetRecord.Name.parse(fileName: $0).map { $0.kind == .delete && $0.versionId == record.versionId } ?? false
            }
        }
    }

    /// Appends the audit records this host has not exported yet to `audit/<host>.jsonl` and commits; returns how many.
    /// The file's last line is the cursor (the log's own format is untouched), read from the file's end
    /// (`AppendedLines`: never the whole file); the records after it come from the database by its time index
    /// (`AuditLog.records(after:)`) and are appended in place.
    func exportAudit() async throws(GitError) -> Int {
        let relative = "audit/\(settings.host).jsonl"
        let file = tree.appendingPathComponent(relative)
        if settings.legacyGrowth { return try await exportAuditRewriting(relative) }
        let lines = AppendedLines(path: file.path)
        let cursor: AuditRecord?
        do {
            cursor = try lines.lastLine().flatMap { try? APICoding.decoder().decode(AuditRecord.self, from: Data($0)) }
        } catch {
            throw .failed(arguments: ["add"], status: -1, message: "cannot read \(file.path): \(error)")
        }
        let records = try await auditRecords(after: cursor)
        guard !records.isEmpty else { return 0 }
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try lines.append(Self.auditLines(records))
        } catch {
            throw .failed(arguments: ["add"], status: -1, message: "cannot write \(file.path): \(error)")
        }
        try await commitAudit(relative, count: records.count)
        return records.count
    }

    /// The export as it was before the growth policy (`FleetSettings.legacyGrowth`, for `make bench-fleet`'s "before"
    /// only): the whole file read to find its last line, and rewritten whole with the new records.
    private func exportAuditRewriting(_ relative: String) async throws(GitError) -> Int {
        let file = tree.appendingPathComponent(relative)
        let existing = (try? Data(contentsOf: file)) ?? Data()
        let cursor = existing.split(separator: 0x0A).last.flatMap {
            try? APICoding.decoder().decode(AuditRecord.self, from: Data($0))
        }
        let records = try await auditRecords(after: cursor)
        guard !records.isEmpty else { return 0 }
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (existing + Self.auditLines(records)).write(to: file, options: .atomic)
        } catch {
            throw .failed(arguments: ["add"], status: -1, message: "cannot write \(file.path): \(error.localizedDescription)")
        }
        try await commitAudit(relative, count: records.count)
        return records.count
    }

    private func auditRecords(after cursor: AuditRecord?) async throws(GitError) -> [AuditRecord] {
        do {
            return try await audit.records(after: cursor)
        } catch {
            throw .failed(arguments: ["add"], status: -1, message: "cannot read the audit log: \(error)")
        }
    }

    /// The records as the file's lines, each ending in a newline.
    private static func auditLines(_ records: [AuditRecord]) -> [UInt8] {
        var bytes: [UInt8] = []
        for r in records {
            var w = JSONWriter(capacity: 512 + r.registers.count * 80)
            r.write(to: &w)
            bytes += w.bytes
            bytes.append(0x0A)
        }
        return bytes
    }

    /// Commits the audit file with the head of this host's audit chain (signed under `signing`): a log rewritten after
    /// this sync no longer holds it (docs/AUDIT-CHAIN.md).
    private func commitAudit(_ relative: String, count: Int) async throws(GitError) {
        try git.run(["add", "--", relative], timeout: settings.localTimeout)
        let head = try? await audit.chainHead()
        try commit(
            "audit: \(count) record\(count == 1 ? "" : "s") of \(settings.host)", who: nil,
            trailer: head.map { "\(Self.auditChainTrailer): \($0.seq) \($0.hash)" })
    }

    /// The trailer of an audit export's commit naming the chain head it was made at.
    static let auditChainTrailer = "Lastset-Audit-Chain"

    /// The heads of this host's audit chain its commits published (oldest first), for `AuditLog.verifyChain`.
    public func publishedAuditHeads() async -> [AuditChainHead] {
        let relative = "audit/\(settings.host).jsonl"
        let out = try? git.run(
            ["log", "--reverse", "--format=%(trailers:key=\(Self.auditChainTrailer),valueonly)", "--", relative],
            timeout: settings.localTimeout)
        return (out?.text ?? "").split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let seq = Int64(parts[0]), parts[1].count == 64 else { return nil }
            return AuditChainHead(seq: seq, hash: String(parts[1]))
        }
    }

    // MARK: other hosts' audit records

    /// Other hosts' audit records as merged here, by host (this host's own come from its audit log).
    public func otherHostsAudit() -> [(host: String, records: [AuditRecord], unreadable: Int)] {
        let dir = tree.appendingPathComponent("audit")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
        let decoder = APICoding.decoder()
        var out: [(String, [AuditRecord], Int)] = []
        for name in names where name.hasSuffix(".jsonl") {
            let host = String(name.dropLast(6))
            guard host != settings.host, SafeName.isValid(host),
                let data = try? Data(contentsOf: dir.appendingPathComponent(name))
            else { continue }
            var records: [AuditRecord] = []
            var bad = 0
            for line in data.split(separator: 0x0A) {
                if let r = try? decoder.decode(AuditRecord.self, from: Data(line)) { records.append(r) } else { bad += 1 }
            }
            // As the audit log reads: an intent whose job has a later record is folded into it.
            let completed = Set(records.filter { $0.result != .started }.compactMap(\.job))
            records.removeAll { $0.result == .started && $0.job.map(completed.contains) == true }
            out.append((host, records, bad))
        }
        return out
    }
}
