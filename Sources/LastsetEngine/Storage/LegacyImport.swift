import Foundation
import LastsetCore
import LastsetStore

#if canImport(Glibc)
    import Glibc
#endif

/// The first start on a data directory written by the release before `lastset.db` (issue 20): its template
/// files (`templates/<page>/v….json`), deleted markers (`v….deleted`) and audit log (`audit.jsonl` and its
/// segments `audit.NNNNNN.jsonl`) become rows, **in one transaction** with the row that says the import was made
/// (`legacy_import`); only then are the files moved aside into `pre-sqlite/` (renamed, never deleted: the
/// administrator removes them).
///
/// - Stopped before that commit (killed, the disk failing), nothing of the import is in the database and every
///   file is where it was: the next start imports again from scratch.
/// - Stopped after it, while moving the files: the next start finds the import row and moves the rest; it never
///   imports twice.
/// - Every version file is kept byte for byte (a corrupt one too: it stays listed with its reason, as it was);
///   every audit line is kept as it was written, in order (segments oldest first, then `audit.jsonl`); a line
///   that does not parse (a record torn by a crash) is kept in `audit_unreadable`, counted as unreadable as the
///   release counted it.
/// - An intent left without its outcome by a stop between the archive's change and its record (a version with
///   only a `started` capture record) gets its outcome from what the archive holds (`UnfinishedIntents`).
/// - What is not the release's own (a link or a FIFO planted among the version files, a page directory that is a
///   link, temp files of interrupted writes) is not imported and is named in the note; it is moved aside with
///   the rest. A `templates` that is itself a link is refused: nothing is imported, the daemon does not start.
///
/// Replay journals (`journal/<job>.jsonl`, replays the release did not finish) become `replay_journal` and
/// `replay_event` rows, recovered at this start like any journal (`Engine.recoverInterrupted`); a torn last line
/// is left out, as the release left it out. Device-state files (`device-state/`, or the single
/// `device-state.json` of older releases) become `device_page_state` rows — all of them or, when one cannot be
/// read, none: the start then rebuilds the state from the audit log (`Engine.loadDeviceState`), as the release did.
enum LegacyImport {
    /// The folder the imported files are moved into.
    static let keptAside = RecordStore.keptAsideName

    /// The names in the data directory that the release before the database kept its records in.
    static func legacyNames(_ names: [String]) -> [String] {
        names.filter {
            ["templates", "audit.jsonl", "journal", "device-state", "device-state.json"].contains($0) || segmentNumber($0) != nil
        }.sorted()
    }

    /// `audit.000012.jsonl` → 12.
    static func segmentNumber(_ name: String) -> Int? {
        guard name.hasPrefix("audit."), name.hasSuffix(".jsonl"), name != "audit.jsonl" else { return nil }
        let digits = name.dropFirst(6).dropLast(6)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }

    /// Imports (once) and moves aside; returns a line for the log, nil when there was nothing to do.
    static func run(dataDirectory: URL, database: Database, host: String?) throws(RecordStoreError) -> String? {
        let data: DirectoryHandle
        do {
            data = try DirectoryHandle.open(dataDirectory.path)
        } catch {
            throw .storage(error)
        }
        let present = legacyNames(data.names())
        let done: String?
        do {
            done = try database.readNow { c in
                try c.first("SELECT summary FROM legacy_import WHERE id = 1") { $0.text(0) } ?? nil
            }
        } catch {
            throw .migration("cannot read whether it was made: \(StorageError.of(error, database.path))")
        }
        if done == nil && present.isEmpty { return nil }
        var note: String
        if let done {
            guard !present.isEmpty else { return nil }
            note = "the import into \(RecordStore.fileName) was made at an earlier start (\(done)); moving its files aside now"
        } else {
            let summary: String
            do {
                summary = try database.writeNow { c in try importAll(data, present: present, host: host, on: c) }
            } catch let e as RecordStoreError {
                throw e
            } catch {
                throw .migration(
                    "\(StorageError.of(error, database.path)); nothing was imported and every file is where it was: the next start imports them again"
                )
            }
            note = "imported the data directory's files into \(RecordStore.fileName): \(summary)"
        }
        note += "; " + moveAside(present, in: data)
        return note
    }

    /// What the import reads, keeps and accounts for (inside the writer's transaction).
    private struct Tally {
        var versions = 0
        var pages = Set<String>()
        var deleted = 0
        var records = 0
        var unreadable = 0
        var notImported: [String] = []
        var accounted: [String] = []
        var journals = 0
        var journalEvents = 0
        var deviceStates = 0
        var deviceStateProblem: String?
        /// Versions of this host, by page and id, with their bytes (for the intents' accounting).
        var localFiles: [String: [String: Data]] = [:]
        /// Page + version id of every version imported.
        var archived = Set<String>()
        /// Intents of the archive's kinds without their outcome yet, by job.
        var open: [String: AuditRecord] = [:]
        /// Page + version id of every version a record names.
        var named = Set<String>()
    }

    /// Imports everything in `present` on the writer's connection `c` (one transaction); returns the summary.
    private static func importAll(_ data: DirectoryHandle, present: [String], host: String?, on c: Connection) throws
        -> String
    {
        var tally = Tally()
        if present.contains("templates") { try importTemplates(data, host: host, on: c, into: &tally) }
        try importAuditLog(data, present: present, on: c, into: &tally)
        if !tally.open.isEmpty { try recordUnfinishedIntents(on: c, into: &tally) }
        if present.contains("journal") { try importJournals(data, on: c, into: &tally) }
        if present.contains("device-state") || present.contains("device-state.json") {
            try importDeviceState(data, present: present, on: c, into: &tally)
        }
        let summary = summary(of: tally)
        try c.run(
            "INSERT INTO legacy_import (id, imported_at, summary) VALUES (1, ?, ?)", .integer(RecordStore.milliseconds(Date())),
            .text(summary))
        return summary
    }

    /// The version files and deleted markers of every page directory under `templates/`.
    private static func importTemplates(_ data: DirectoryHandle, host: String?, on c: Connection, into tally: inout Tally)
        throws
    {
        let templates: DirectoryHandle
        do {
            guard let t = try data.subdirectory("templates", create: false) else {
                throw StorageError(operation: "open directory", path: data.path + "/templates", errno: ENOENT)
            }
            templates = t
        } catch {
            throw RecordStoreError.migration("\(error); nothing was imported")
        }
        for page in templates.names().sorted() {
            guard SafeName.isValid(page) else {
                tally.notImported.append("templates/\(page) (not a page id)")
                continue
            }
            let dir: DirectoryHandle
            do {
                guard let d = try templates.subdirectory(page, create: false) else { continue }
                dir = d
            } catch {
                tally.notImported.append("templates/\(page) (\(error))")
                continue
            }
            for name in dir.names().sorted() {
                if let v = TemplateVersion.parse(fileName: name) {
                    try importVersion(v, file: name, page: page, in: dir, host: host, on: c, into: &tally)
                } else if name.hasSuffix(".deleted"),
                    let v = TemplateVersion.parse(fileName: String(name.dropLast(8)) + ".json")
                {
                    var st = stat()
                    let when =
                        fstatat(dir.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0
                        ? Int64(st.st_mtim.tv_sec) * 1000 + Int64(st.st_mtim.tv_nsec / 1_000_000)
                        : RecordStore.milliseconds(Date())
                    try c.run(
                        "INSERT OR IGNORE INTO template_deleted (page_id, host, number, deleted_at) VALUES (?, ?, ?, ?)",
                        .text(page), .text(v.host ?? ""), .integer(v.number), .integer(when))
                    tally.deleted += 1
                } else {
                    tally.notImported.append("templates/\(page)/\(name) (not a version file)")
                }
            }
        }
    }

    /// One version file, byte for byte (one that cannot be read is named, not imported).
    private static func importVersion(
        _ v: TemplateVersion, file name: String, page: String, in dir: DirectoryHandle, host: String?, on c: Connection,
        into tally: inout Tally
    ) throws {
        let file: Data
        do {
            guard let read = try dir.readFile(name) else { return }
            file = read.data
        } catch {
            tally.notImported.append("templates/\(page)/\(name) (\(error))")
            return
        }
        try c.run(
            "INSERT INTO template_version (page_id, host, number, archived_at, file) VALUES (?, ?, ?, ?, ?)",
            .text(page), .text(v.host ?? ""), .integer(v.number),
            v.archivedAt.map { .integer(RecordStore.milliseconds($0)) } ?? .null, .blob(file))
        tally.versions += 1
        tally.pages.insert(page)
        tally.archived.insert(page + "\u{0}" + v.id)
        if v.host == host { tally.localFiles[page, default: [:]][v.id] = file }
    }

    /// The audit log, oldest first: segments by number, then the live file. Each line is kept as written; one that
    /// does not parse goes to `audit_unreadable`.
    private static func importAuditLog(_ data: DirectoryHandle, present: [String], on c: Connection, into tally: inout Tally)
        throws
    {
        let logs =
            present.compactMap { n in segmentNumber(n).map { (n, $0) } }.sorted { $0.1 < $1.1 }.map(\.0)
            + (present.contains("audit.jsonl") ? ["audit.jsonl"] : [])
        let decoder = APICoding.decoder()
        for name in logs {
            let bytes: Data
            do {
                guard let read = try data.readFile(name) else { continue }
                bytes = read.data
            } catch {
                throw RecordStoreError.migration("\(error); nothing was imported")
            }
            for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
                let text = Data(line)
                guard let r = try? decoder.decode(AuditRecord.self, from: text) else {
                    try c.run("INSERT INTO audit_unreadable (source, line) VALUES (?, ?)", .text(name), .blob(text))
                    tally.unreadable += 1
                    continue
                }
                try AuditLog.insert(AuditLog.Row(r, json: String(decoding: text, as: UTF8.self)), on: c)
                tally.records += 1
                if let id = r.templateVersionId ?? r.templateVersion.map(String.init) {
                    tally.named.insert(r.pageId + "\u{0}" + id)
                }
                if let job = r.job {
                    if r.result == .started {
                        if r.kind != .replay && r.kind != .dryRun { tally.open[job] = r }
                    } else {
                        tally.open[job] = nil
                    }
                }
            }
        }
    }

    /// Intents left without their outcome: judged from what the archive holds, each outcome recorded now.
    private static func recordUnfinishedIntents(on c: Connection, into tally: inout Tally) throws {
        var unrecorded: [Template] = []
        for (page, files) in tally.localFiles {
            for (id, file) in files where !tally.named.contains(page + "\u{0}" + id) {
                if let t = try? TemplateFile.decode(file), t.pageId == page { unrecorded.append(t) }
            }
        }
        let archived = tally.archived
        let outcomes = UnfinishedIntents.outcomes(
            of: Array(tally.open.values), unrecorded: unrecorded, isArchived: { archived.contains($0 + "\u{0}" + $1) })
        for outcome in outcomes {
            try AuditLog.insert(AuditLog.Row(outcome), on: c)
            tally.accounted.append(
                "\(outcome.kind.rawValue) of \(outcome.pageId) (job \(outcome.job ?? "?")): \(outcome.result.rawValue)"
                    + (outcome.result == .archived ? " as version \(outcome.templateVersionId ?? "?")" : ""))
        }
    }

    /// The import's line for the log: what was imported, recorded and left out.
    private static func summary(of tally: Tally) -> String {
        var summary =
            "\(tally.versions) template version\(tally.versions == 1 ? "" : "s") of \(tally.pages.count) page\(tally.pages.count == 1 ? "" : "s"), \(tally.deleted) deleted marker\(tally.deleted == 1 ? "" : "s"), \(tally.records) audit record\(tally.records == 1 ? "" : "s")"
        if tally.unreadable > 0 {
            summary +=
                " and \(tally.unreadable) unreadable audit line\(tally.unreadable == 1 ? "" : "s") (kept in audit_unreadable)"
        }
        if tally.journals > 0 {
            summary +=
                "; \(tally.journals) journal\(tally.journals == 1 ? "" : "s") of unfinished replays (\(tally.journalEvents) transitions)"
        }
        if tally.deviceStates > 0 {
            summary += "; \(tally.deviceStates) device page state\(tally.deviceStates == 1 ? "" : "s")"
        }
        if let problem = tally.deviceStateProblem {
            summary += "; device state not imported (\(problem)): rebuilt from the audit log"
        }
        if !tally.accounted.isEmpty {
            summary +=
                "; intents the release left without their outcome, recorded now: " + tally.accounted.joined(separator: ", ")
        }
        if !tally.notImported.isEmpty {
            summary += "; not imported (not the release's own files): " + tally.notImported.joined(separator: ", ")
        }
        return summary
    }

    /// The release's replay journals: a file per unfinished replay, its intent line first, one line per transition.
    private static func importJournals(_ data: DirectoryHandle, on c: Connection, into tally: inout Tally) throws {
        let journal: DirectoryHandle
        do {
            guard let j = try data.subdirectory("journal", create: false) else { return }
            journal = j
        } catch {
            throw RecordStoreError.migration("\(error); nothing was imported")
        }
        let decoder = APICoding.decoder()
        for name in journal.names().sorted() where name.hasSuffix(".jsonl") {
            let bytes: Data
            do {
                guard let read = try journal.readFile(name) else { continue }
                bytes = read.data
            } catch {
                tally.notImported.append("journal/\(name) (\(error))")
                continue
            }
            var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true).map { Data($0) }
            // A torn last line (killed mid-write) is left out, as the release left it out; every earlier line is whole.
            if let last = lines.last, (try? decoder.decode(ReplayEvent.self, from: last)) == nil { lines.removeLast() }
            guard let first = lines.first, let event = try? decoder.decode(ReplayEvent.self, from: first),
                let intent = event.intent
            else {
                // Killed before its intent was whole: nothing was written yet.
                tally.notImported.append("journal/\(name) (no whole intent: the replay wrote nothing)")
                continue
            }
            let row = ReplayJournal.IntentRow(intent)
            try c.run(
                "INSERT INTO replay_journal (job, started_at, device, page_id, intent) VALUES (?, ?, ?, ?, ?)", .text(row.job),
                .integer(row.time), .text(row.device), .text(row.pageId), .text(String(decoding: first, as: UTF8.self)))
            for (i, line) in lines.dropFirst().enumerated() {
                try c.run(
                    "INSERT INTO replay_event (job, seq, event) VALUES (?, ?, ?)", .text(intent.job), .integer(i + 1),
                    .text(String(decoding: line, as: UTF8.self)))
                tally.journalEvents += 1
            }
            tally.journals += 1
        }
    }

    /// The release's device state: `device-state/` (a file per device page) or the older single `device-state.json`.
    private static func importDeviceState(_ data: DirectoryHandle, present: [String], on c: Connection, into tally: inout Tally)
        throws
    {
        struct FileBody: Decodable {
            var format: String
            var state: DevicePageState
        }
        struct SingleFileBody: Decodable {
            var format: String
            var states: [DevicePageState]
        }
        let format = "lastset-device-state"
        let decoder = APICoding.decoder()
        var states: [DevicePageState] = []
        do {
            if present.contains("device-state") {
                guard let dir = try data.subdirectory("device-state", create: false) else { return }
                for name in dir.names().sorted() where name.hasSuffix(".json") && !name.hasPrefix(".") {
                    guard let file = try dir.readFile(name) else { continue }
                    guard let body = try? decoder.decode(FileBody.self, from: file.data), body.format == format else {
                        throw StorageError(operation: "read", path: "device-state/\(name)", errno: EINVAL)
                    }
                    states.append(body.state)
                }
            } else if let file = try data.readFile("device-state.json") {
                guard let body = try? decoder.decode(SingleFileBody.self, from: file.data), body.format == format else {
                    throw StorageError(operation: "read", path: "device-state.json", errno: EINVAL)
                }
                states = body.states
            }
        } catch {
            tally.deviceStateProblem = "\(error)"
            return
        }
        var seen = Set<String>()
        for s in states where seen.insert(s.device + "\u{0}" + s.pageId).inserted {
            try DeviceStateStore.save(DeviceStateStore.Row(s), on: c)
            tally.deviceStates += 1
        }
    }

    /// Renames each of `names` into `pre-sqlite/` (a name already there gets `.2`, `.3`, …), then fsyncs both
    /// directories; says what it did, and what it could not (left in place: the next start moves it).
    private static func moveAside(_ names: [String], in data: DirectoryHandle) -> String {
        let aside: DirectoryHandle
        do {
            guard let a = try data.subdirectory(keptAside, create: true) else {
                return "could not make \(data.path)/\(keptAside): the files stay in place (the next start moves them)"
            }
            aside = a
        } catch {
            return "could not make \(data.path)/\(keptAside) (\(error)): the files stay in place (the next start moves them)"
        }
        let taken = Set(aside.names())
        var moved: [String] = []
        var failed: [String] = []
        for name in names {
            var target = name
            var n = 1
            while taken.contains(target) {
                n += 1
                target = "\(name).\(n)"
            }
            if renameat(data.fd, name, aside.fd, target) == 0 {
                moved.append(target == name ? name : "\(name) as \(target)")
            } else {
                failed.append("\(name): \(String(cString: strerror(errno)))")
            }
        }
        var text = "moved aside into \(aside.path) (kept until the administrator removes them): " + moved.joined(separator: ", ")
        do {
            try aside.sync()
            try data.sync()
        } catch {
            text += "; \(error)"
        }
        if !failed.isEmpty { text += "; left in place (the next start moves them): " + failed.joined(separator: ", ") }
        return text
    }
}
