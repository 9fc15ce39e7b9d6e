import Foundation
import LastsetCore
import LastsetStore
import LastsetFormats

#if canImport(Glibc)
    import Glibc
#endif

/// Retention of the audit log: the records past the configured bound are exported to a JSONL file in
/// `<data>/audit-archive/` — made durable (written, fsynced, renamed into place, its directory fsynced) — and only
/// then removed from the database, in one commit with the `retention` record that names the file. Nothing is
/// dropped without being in a file first.
///
/// **What is kept**: the newest `keepRecords` records (counted as `lastset audit` counts them — an intent completed
/// by its outcome is not a record of its own — leaving out the `retention` records, which are kept by age and
/// position like any other but never counted, so a run's own records never push another out), pruned once the
/// log holds more than `keepRecords` plus a tenth of it (`slack`); the records of the last `keepDays` days, and — whatever their age —
/// every intent (`started`) whose job has no outcome yet; an intent goes only in the same file as its outcome.
/// With both bounds a record goes only when it is past both.
///
/// **A file is** `audit-<first seq>-<last seq>.jsonl`: one record a line, in order, each the record's JSON exactly as
/// the database keeps it (the shape `lastset audit --json` shows a record in, keys sorted, one line).
///
/// **The idempotent rule** (a stop between the file and the commit): a file's first record is always removed by
/// the commit that follows it, and a removed record's `seq` never comes back (the `retention` record of the same
/// commit is newer). So a file whose first line is still the record at its first `seq` in the database belongs to a
/// run whose commit never happened: every record of it is still in the database, and the next run removes the
/// file and exports those records again (into a new file, with whatever else is past the bound by then). Nothing is
/// lost and no record is in two files. A `.partial` file (a stop while writing) is removed the same way.
public final class AuditRetention: Sendable {
    /// The folder of the exported files in the data directory.
    public static let directoryName = "audit-archive"
    /// The principal of the `retention` records.
    public static let principal = "lastsetd"

    /// The database whose audit log is pruned.
    public let database: Database
    /// `<data>/audit-archive`.
    public let directory: String
    /// Records exported per file (and removed per commit), at most.
    let batchRecords: Int
    /// Bytes of records per file, at most (a record of a large replay is large).
    let batchBytes: Int

    /// Retention of `database`'s audit log, exporting into `audit-archive/` beside it.
    public init(database: Database, batchRecords: Int = 20_000, batchBytes: Int = 32 << 20) {
        self.database = database
        directory = (database.path as NSString).deletingLastPathComponent + "/" + Self.directoryName
        self.batchRecords = max(1, batchRecords)
        self.batchBytes = max(1, batchBytes)
    }

    /// What one run did.
    public struct Report: Sendable, Hashable {
        /// One exported file.
        public struct File: Sendable, Hashable {
            /// Its name in `audit-archive/`.
            public var name: String
            /// Records in it (each removed from the database).
            public var records: Int
            /// Its bytes.
            public var bytes: Int
        }
        /// The files written and committed, oldest first.
        public var files: [File] = []
        /// Files of an earlier run whose commit never happened, removed (their records exported again).
        public var redone: [String] = []
        /// Leftover `.partial` files removed.
        public var partialsRemoved: [String] = []

        /// Records exported and removed.
        public var records: Int { files.reduce(0) { $0 + $1.records } }
    }

    /// Runs retention once: finishes what an interrupted run left, then exports and removes every record past the
    /// bounds, in files of at most `batchRecords` records. Without any bound it does nothing.
    public func run(_ policy: AuditConfig, now: Date = Date()) async throws(StorageError) -> Report {
        var report = Report()
        guard policy.prunes else { return report }
        let dir = try await blocking { () throws(StorageError) in try self.openDirectory() }
        defer { close(dir) }
        report.partialsRemoved = try await blocking { () throws(StorageError) in try self.removePartials(dir) }
        report.redone = try await redoUncommitted(dir)
        // The bounds are fixed for the run: the records it adds itself (newer than both) never move them.
        guard let bounds = try await bounds(policy, now: now) else { return report }
        while true {
            let batch = try await selectBatch(below: bounds)
            guard !batch.isEmpty else { break }
            let file = try await blocking { () throws(StorageError) in try self.export(batch, into: dir) }
            try await commitRemoval(batch, file: file, policy: policy, now: now)
            report.files.append(file)
        }
        return report
    }

    /// The queue the file work runs on (writes and fsyncs never block the cooperative pool).
    private let queue = DispatchQueue(label: "lastset.audit-retention")

    /// Runs `body` on the retention's own queue.
    private func blocking<T: Sendable>(_ body: @escaping @Sendable () throws(StorageError) -> T) async throws(StorageError) -> T {
        let result = await withCheckedContinuation { (c: CheckedContinuation<Result<T, StorageError>, Never>) in
            queue.async { c.resume(returning: Result { () throws(StorageError) -> T in try body() }) }
        }
        return try result.get()
    }

    // MARK: selection

    /// One record past the bounds.
    struct Pruned: Sendable {
        let seq: Int64
        let time: Int64
        let record: String
    }

    /// Where a run stops: records with a `seq` below `seq` and a time below `time` are past the bounds.
    struct Bounds: Sendable, Hashable {
        var seq: Int64
        var time: Int64
    }

    /// The records a count bound lets the log hold past `keepRecords` before a run prunes it back to `keepRecords`:
    /// a tenth of it (at least 1), so a run that exports a file and records it does not leave the next run one record
    /// to export — files come in batches, not a trickle.
    public static func slack(keepRecords: Int) -> Int { max(1, keepRecords / 10) }

    /// The bounds of a run at `now`; nil when nothing is past them (the log within `keepRecords` + slack).
    func bounds(_ policy: AuditConfig, now: Date) async throws(StorageError) -> Bounds? {
        let cutoff = policy.keepDays.map { RecordStore.milliseconds(now) - Int64($0) * 86_400_000 } ?? Int64.max
        guard let keep = policy.keepRecords else { return Bounds(seq: Int64.max, time: cutoff) }
        let retention = AuditKind.retention.rawValue
        do {
            return try await database.read { c in
                let count =
                    try c.first("SELECT count(*) FROM audit_record WHERE folded = 0 AND kind != ?", .text(retention)) {
                        Int($0.int64(0))
                    } ?? 0
                guard count > keep + Self.slack(keepRecords: keep) else { return nil }
                // The seq of the oldest record kept by count.
                let seq = try c.first(
                    "SELECT seq FROM audit_record WHERE folded = 0 AND kind != ? ORDER BY seq DESC LIMIT 1 OFFSET ?",
                    .text(retention), .integer(Int64(keep - 1))
                ) { row in row.int64(0) }
                return seq.map { Bounds(seq: $0, time: cutoff) }
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
    }

    /// The oldest records past `bounds` (at most a batch), in order; intents only with their outcome.
    func selectBatch(below bounds: Bounds) async throws(StorageError) -> [Pruned] {
        let (bound, cutoff) = (bounds.seq, bounds.time)
        let (limit, bytes) = (batchRecords, batchBytes)
        do {
            return try await database.read { c in
                var rows: [(seq: Int64, time: Int64, result: String, job: String?, record: String)] = []
                var size = 0
                try c.rows(
                    "SELECT seq, time, result, job, record FROM audit_record WHERE seq < ? AND time < ? ORDER BY seq LIMIT ?",
                    .integer(bound), .integer(cutoff), .integer(Int64(limit))
                ) { row in
                    let record = row.text(4) ?? ""
                    rows.append((row.int64(0), row.int64(1), row.text(2) ?? "", row.text(3), record))
                    size += record.utf8.count + 1
                    return size < bytes
                }
                // An intent goes only with its outcome, in the same file. One without an outcome past the bound
                // stays (unfinished, or completed by a record that is kept); one whose outcome is past the bound but
                // after this batch ends the batch, so the files follow each other in order.
                let started = AuditResult.started.rawValue
                let last = rows.last?.seq ?? 0
                var out: [Pruned] = []
                for r in rows {
                    if r.result == started {
                        let outcome = try r.job.flatMap { job in
                            try c.first(
                                "SELECT seq FROM audit_record WHERE job = ? AND result != ? AND seq > ? AND seq < ? AND time < ? ORDER BY seq LIMIT 1",
                                .text(job), .text(started), .integer(r.seq), .integer(bound), .integer(cutoff)
                            ) { row in row.int64(0) }
                        }
                        guard let outcome else { continue }
                        if outcome > last {
                            if out.isEmpty { continue }
                            break
                        }
                    }
                    out.append(Pruned(seq: r.seq, time: r.time, record: r.record))
                }
                return out
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
    }

    // MARK: the file

    /// The name of the file holding records `first`…`last`.
    public static func fileName(first: Int64, last: Int64) -> String { "audit-\(first)-\(last).jsonl" }

    /// The first and last seq a file name says it holds; nil for any other name.
    public static func range(ofFile name: String) -> (first: Int64, last: Int64)? {
        guard name.hasPrefix("audit-"), name.hasSuffix(".jsonl") else { return nil }
        let parts = name.dropFirst("audit-".count).dropLast(".jsonl".count).split(
            separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int64(parts[0]), let last = Int64(parts[1]), first >= 1, first <= last,
            String(first) == parts[0], String(last) == parts[1]
        else { return nil }
        return (first, last)
    }

    /// Writes `batch` to `audit-<first>-<last>.jsonl`, durable before it returns: a `.partial` file written and
    /// fsynced, renamed into place (never over an existing file), the directory fsynced.
    func export(_ batch: [Pruned], into dir: Int32) throws(StorageError) -> Report.File {
        let name = Self.fileName(first: batch[0].seq, last: batch[batch.count - 1].seq)
        let partial = "." + name + ".partial"
        var bytes: [UInt8] = []
        bytes.reserveCapacity(batch.reduce(0) { $0 + $1.record.utf8.count + 1 })
        for p in batch {
            bytes += p.record.utf8
            bytes.append(0x0A)
        }
        var st = stat()
        guard fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0 else {
            throw StorageError(
                operation: "export audit records to", path: path(name), errno: EEXIST,
                detail: "it already exists and its first record is no longer in the database; nothing was removed")
        }
        let fd = openat(dir, partial, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw StorageError(operation: "create", path: path(partial), errno: errno) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let code = n < 0 ? errno : EIO
                close(fd)
                unlinkat(dir, partial, 0)
                throw StorageError(operation: "write", path: path(partial), errno: code)
            }
            offset += n
        }
        guard fsync(fd) == 0 else {
            let code = errno
            close(fd)
            unlinkat(dir, partial, 0)
            throw StorageError(operation: "fsync", path: path(partial), errno: code)
        }
        close(fd)
        guard renameat(dir, partial, dir, name) == 0 else {
            let code = errno
            unlinkat(dir, partial, 0)
            throw StorageError(operation: "rename into place", path: path(name), errno: code)
        }
        guard fsync(dir) == 0 else { throw StorageError(operation: "fsync the directory", path: directory, errno: errno) }
        return Report.File(name: name, records: batch.count, bytes: bytes.count)
    }

    /// Removes the exported records and records the run, in one commit. Fails (removing nothing) unless every
    /// record of the file is still there.
    func commitRemoval(_ batch: [Pruned], file: Report.File, policy: AuditConfig, now: Date) async throws(StorageError) {
        let seqs = batch.map(\.seq)
        let first = RecordStore.date(milliseconds: batch.map(\.time).min() ?? 0)
        let last = RecordStore.date(milliseconds: batch.map(\.time).max() ?? 0)
        var kept: [String] = []
        if let n = policy.keepRecords { kept.append("the newest \(n) record\(n == 1 ? "" : "s")") }
        if let d = policy.keepDays { kept.append("those of the last \(d) day\(d == 1 ? "" : "s")") }
        let message =
            "exported \(batch.count) audit record\(batch.count == 1 ? "" : "s") (seq \(seqs[0])…\(seqs[seqs.count - 1]), recorded \(TimeText.iso8601(first))…\(TimeText.iso8601(last))) to \(Self.directoryName)/\(file.name) (\(file.bytes) bytes), then removed them from \(RecordStore.fileName); kept: \(kept.joined(separator: " and ")), and every intent whose job has no outcome"
        let record = AuditRecord(
            time: now, kind: .retention, who: Self.principal, pageId: "", device: "", endpoint: "", unit: 0, identity: [],
            templateVersion: nil, pageHash: "", result: .archived, message: message, registers: [])
        let row = AuditLog.Row(record)
        let path = self.path(file.name)
        do {
            try await database.write { c in
                var removed = 0
                for seq in seqs {
                    try AuditChainStore.prune(seq: seq, file: file.name, on: c)
                    removed += try c.run("DELETE FROM audit_record WHERE seq = ?", .integer(seq), operation: "prune")
                }
                guard removed == seqs.count else {
                    throw StorageError(
                        operation: "remove the records exported to", path: path, errno: ESTALE,
                        detail: "\(seqs.count - removed) of them were no longer in the database; nothing was removed")
                }
                try AuditLog.insert(row, on: c)
            }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.of(error, database.path)
        }
    }

    // MARK: an interrupted run

    /// Removes the files of runs whose commit never happened (their first record still in the database).
    func redoUncommitted(_ dir: Int32) async throws(StorageError) -> [String] {
        let files = try await blocking { () throws(StorageError) in try self.names(dir) }.compactMap { name in
            Self.range(ofFile: name).map { (name, $0) }
        }
        guard !files.isEmpty else { return [] }
        let oldest: Int64?
        do {
            oldest = try await database.read { c in
                try c.first("SELECT min(seq) FROM audit_record") { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
        guard let oldest else { return [] }
        var removed: [String] = []
        // Only a file whose last record is not older than the oldest left can hold records still there.
        for (name, range) in files where range.last >= oldest {
            let firstLine = try await blocking { () throws(StorageError) in try self.readFirstLine(name, in: dir) }
            let stored: String?
            do {
                stored = try await database.read { c in
                    try c.first("SELECT record FROM audit_record WHERE seq = ?", .integer(range.first)) { $0.text(0) } ?? nil
                }
            } catch {
                throw StorageError.of(error, database.path)
            }
            guard let stored, stored == firstLine else { continue }
            removed.append(name)
        }
        guard !removed.isEmpty else { return [] }
        let stale = removed
        return try await blocking { () throws(StorageError) in
            for name in stale where unlinkat(dir, name, 0) != 0 {
                throw StorageError(operation: "remove", path: self.path(name), errno: errno)
            }
            guard fsync(dir) == 0 else {
                throw StorageError(operation: "fsync the directory", path: self.directory, errno: errno)
            }
            return stale
        }
    }

    /// The first line of file `name` (without its newline), read without following a link.
    private func readFirstLine(_ name: String, in dir: Int32) throws(StorageError) -> String {
        let fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError(operation: "open", path: path(name), errno: errno) }
        defer { close(fd) }
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw StorageError(operation: "read", path: path(name), errno: errno) }
            if n == 0 { break }
            if let end = chunk[0..<n].firstIndex(of: 0x0A) {
                line += chunk[0..<end]
                break
            }
            line += chunk[0..<n]
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// Removes `.partial` files (a run stopped while writing one: no record was removed for it).
    private func removePartials(_ dir: Int32) throws(StorageError) -> [String] {
        let partials = try names(dir).filter { $0.hasPrefix(".audit-") && $0.hasSuffix(".partial") }
        for name in partials where unlinkat(dir, name, 0) != 0 {
            throw StorageError(operation: "remove", path: path(name), errno: errno)
        }
        return partials
    }

    // MARK: the directory

    private func path(_ name: String) -> String { directory + "/" + name }

    /// Opens `audit-archive/` (created 0750, its entry made durable, the first time); a link there is refused.
    private func openDirectory() throws(StorageError) -> Int32 {
        var st = stat()
        if lstat(directory, &st) != 0 {
            guard errno == ENOENT else { throw StorageError(operation: "open", path: directory, errno: errno) }
            if mkdir(directory, 0o750) != 0 && errno != EEXIST {
                throw StorageError(operation: "create directory", path: directory, errno: errno)
            }
            let parent = (directory as NSString).deletingLastPathComponent
            let pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            defer { if pfd >= 0 { close(pfd) } }
            guard pfd >= 0, fsync(pfd) == 0 else {
                throw StorageError(operation: "fsync the directory", path: parent, errno: errno)
            }
        }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            // O_NOFOLLOW on a link fails with ELOOP (or ENOTDIR with O_DIRECTORY): say which.
            if lstat(directory, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK {
                throw StorageError(operation: "open", path: directory, errno: ELOOP)
            }
            throw StorageError(operation: "open", path: directory, errno: code)
        }
        return fd
    }

    /// The names in the directory.
    private func names(_ dir: Int32) throws(StorageError) -> [String] {
        let copy = dup(dir)
        guard copy >= 0, let stream = fdopendir(copy) else {
            let code = errno
            if copy >= 0 { close(copy) }
            throw StorageError(operation: "list", path: directory, errno: code)
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var out: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { out.append(name) }
        }
        return out
    }
}
