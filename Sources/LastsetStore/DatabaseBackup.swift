import CSQLite
import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A consistent copy of a `Database` made while it is in use (SQLite's online backup API), checked before it is
/// handed over: what it holds and how it was verified.
///
/// The copy is one self-contained file in rollback-journal mode (no `-wal` beside it is needed to read it): the
/// daemon switches it back to WAL when it is restored and opened. It holds exactly the database as of one read
/// transaction begun when the backup began: every commit acknowledged before that is in it, none made later.
public struct DatabaseBackup: Sendable, Hashable {
    /// The file written.
    public var path: String
    /// Its size in bytes.
    public var bytes: Int64
    /// Database pages copied.
    public var pages: Int
    /// `PRAGMA user_version` of the copy (the schema version, equal to the live database's).
    public var schemaVersion: Int
    /// `PRAGMA application_id` of the copy (the live database's).
    public var applicationID: Int32

    /// Sets every field.
    public init(path: String, bytes: Int64, pages: Int, schemaVersion: Int, applicationID: Int32) {
        self.path = path
        self.bytes = bytes
        self.pages = pages
        self.schemaVersion = schemaVersion
        self.applicationID = applicationID
    }
}

extension Database {
    /// Copies the database into a new file `destination` while writers keep committing, on a connection and a
    /// queue of the backup's own (never the writer's, never the cooperative pool).
    ///
    /// The source is read in one read transaction (WAL: writers are not held up, and the snapshot cannot move
    /// under the copy), `pagesPerStep` pages per `sqlite3_backup_step`. The copy is then switched to
    /// rollback-journal mode, checked (`PRAGMA quick_check`, the schema's `application_id` and `user_version`),
    /// fsynced with its directory. `destination` must not exist (created `O_EXCL | O_NOFOLLOW`, mode 0640); on any
    /// failure the file made is removed and the error names what failed.
    public func backup(to destination: String, pagesPerStep: Int32 = 1_024) async throws(DatabaseError) -> DatabaseBackup {
        let source = path
        let schema = self.schema
        let queue = DispatchQueue(label: "lastset.db.backup")
        let result = await withCheckedContinuation { (c: CheckedContinuation<Result<DatabaseBackup, DatabaseError>, Never>) in
            queue.async {
                c.resume(
                    returning: Result { () throws(DatabaseError) -> DatabaseBackup in
                        try Self.copy(source: source, to: destination, schema: schema, pagesPerStep: pagesPerStep)
                    })
            }
        }
        return try result.get()
    }

    /// The backup itself (on the backup's queue).
    private static func copy(source: String, to destination: String, schema: Schema, pagesPerStep: Int32) throws(DatabaseError)
        -> DatabaseBackup
    {
        try createExclusively(destination)
        do throws(DatabaseError) {
            let pages = try transfer(source: source, to: destination, pagesPerStep: pagesPerStep)
            let copy = try Connection(path: destination, readOnly: false)
            defer { copy.close() }
            let mode =
                try copy.first("PRAGMA journal_mode = DELETE", operation: "make the backup self-contained:") {
                    $0.text(0)
                } ?? nil
            guard mode == "delete" else {
                throw DatabaseError(
                    operation: "make the backup self-contained:", path: destination, code: SQLITE_ERROR,
                    message: "its journal mode stayed \(mode ?? "unknown")")
            }
            try check(copy)
            let application =
                try copy.first("PRAGMA application_id", operation: "check the backup") { Int32(truncatingIfNeeded: $0.int64(0)) }
                ?? 0
            let version = try copy.first("PRAGMA user_version", operation: "check the backup") { Int($0.int64(0)) } ?? 0
            guard application == schema.applicationID, version == schema.version else {
                throw DatabaseError(
                    operation: "check the backup", path: destination, code: SQLITE_CORRUPT,
                    message:
                        "it is not \(schema.name) at schema \(schema.version) (application id \(application), schema version \(version))"
                )
            }
            copy.close()
            try syncFile(destination)
            var st = stat()
            let bytes = lstat(destination, &st) == 0 ? Int64(st.st_size) : 0
            return DatabaseBackup(
                path: destination, bytes: bytes, pages: pages, schemaVersion: version, applicationID: application)
        } catch {
            unlink(destination)
            unlink(destination + "-journal")
            throw error
        }
    }

    /// Creates `path` empty, refusing anything already there (a file, a link, a directory), and makes its
    /// directory entry durable.
    private static func createExclusively(_ path: String) throws(DatabaseError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o640)
        guard fd >= 0 else {
            let code = errno
            let why = code == EEXIST ? "it already exists (a backup never replaces a file)" : String(cString: strerror(code))
            throw DatabaseError(
                operation: "create the backup", path: path, code: SQLITE_CANTOPEN, message: why, systemErrno: code)
        }
        Glibc.close(fd)
    }

    /// Copies every page of `source` into `destination` inside one read transaction of a connection of its own.
    private static func transfer(source: String, to destination: String, pagesPerStep: Int32) throws(DatabaseError) -> Int {
        let from = try Connection(path: source, readOnly: false)
        defer { from.close() }
        try configure(from, writer: false)
        let to = try Connection(path: destination, readOnly: false)
        defer { to.close() }
        // The snapshot is taken by the first read: every commit acknowledged before this line is in the copy.
        try from.execute("BEGIN", operation: "begin the backup of")
        defer { try? from.execute("COMMIT") }
        _ = try from.first("SELECT count(*) FROM sqlite_schema", operation: "begin the backup of") { $0.int64(0) }
        guard let backup = sqlite3_backup_init(to.handle, "main", from.handle, "main") else {
            throw to.error("start the backup into", sqlite3_errcode(to.handle))
        }
        var rc = SQLITE_OK
        var busyRetries = 0
        while rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED {
            rc = sqlite3_backup_step(backup, pagesPerStep)
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED {
                busyRetries += 1
                if busyRetries > 500 { break }
                sqlite3_sleep(10)
            }
        }
        let pages = Int(sqlite3_backup_pagecount(backup))
        let finished = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE, finished == SQLITE_OK else {
            throw DatabaseError(
                operation: "copy the pages of \(source) into", path: destination, code: rc == SQLITE_DONE ? finished : rc,
                handle: to.handle)
        }
        return pages
    }

    /// fsyncs the file and its directory.
    private static func syncFile(_ path: String) throws(DatabaseError) {
        let directory = (path as NSString).deletingLastPathComponent
        for (target, flags) in [
            (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), (directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC),
        ] {
            let fd = open(target, flags)
            guard fd >= 0, fsync(fd) == 0 else {
                let code = errno
                if fd >= 0 { Glibc.close(fd) }
                throw DatabaseError(
                    operation: "fsync the backup", path: target, code: SQLITE_IOERR | (4 << 8),
                    message: String(cString: strerror(code)), systemErrno: code)
            }
            Glibc.close(fd)
        }
    }
}
