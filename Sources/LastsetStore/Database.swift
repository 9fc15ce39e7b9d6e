import CSQLite
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The owner of one SQLite database file: one writer that group-commits, and reader connections of their own.
///
/// The file is opened without following a link (SQLITE_OPEN_NOFOLLOW on the real path of its directory: the
/// directory's own path may go through links, the file may not), in WAL mode with `synchronous=FULL` (every
/// commit is fsynced before it returns) and foreign keys on; its schema is versioned by `PRAGMA user_version`
/// and brought forward by `Schema`'s migrations at open.
///
/// **Writes** go to one connection on one serial queue. A write is a closure run inside a transaction; the
/// writes that arrive while a commit is being made wait, and all of them go into the next transaction
/// together (each in its own savepoint, so one whose statements fail is rolled back alone and fails alone).
/// Every caller is resumed only after the COMMIT that holds its rows has returned, that is once the WAL is
/// fsynced; a failed COMMIT fails exactly the callers whose writes it held. So 32 jobs finishing at once share
/// a few fsyncs instead of queueing behind 32.
///
/// **Reads** run on reader connections, each on its own serial queue (WAL lets them read while the writer
/// commits), inside a read transaction: one consistent snapshot per read. Blocking SQLite calls never run on
/// the cooperative pool.
///
/// The WAL is checkpointed by the writer itself once the log has grown past `checkpointFrames` and no write has
/// come for `checkpointIdle` (500 ms by default; a checkpoint fsyncs the WAL and the file: made right after a job's commit, its
/// fsyncs fell inside the job; a log past 8 × `checkpointFrames` is checkpointed at once, so it stays bounded);
/// right after a checkpoint it makes one small write of its own, so the restart of the log (whose header SQLite
/// fsyncs separately) is paid there and never by a job's commit.
public final class Database: Sendable {
    /// The database file (its directory's real path + its name).
    public let path: String
    /// Frames in the WAL past which an idle writer checkpoints (4 KiB pages: 2,000 ≈ 8 MiB).
    public let checkpointFrames: Int32
    /// The schema the file was migrated to (what a backup of it must carry too).
    public let schema: Schema
    private let writer: Writer
    private let readers: [Reader]
    private let nextReader = Mutex(0)

    /// What the writer has done, for tests, metrics and benchmarks.
    public struct Statistics: Sendable, Hashable {
        /// Transactions committed (each one fsync of the WAL, but for the `nonDurableCommits` among them).
        public var commits = 0
        /// Transactions committed into the WAL without an fsync (every write in them `durable: false`).
        public var nonDurableCommits = 0
        /// Writes acknowledged (each belonged to one commit).
        public var writes = 0
        /// Transactions whose COMMIT failed (their writes all failed).
        public var failedCommits = 0
        /// Writes waiting for the next transaction right now.
        public var queued = 0
        /// Checkpoints run.
        public var checkpoints = 0
        /// Checkpoints that failed (tried again later), and the last one's error.
        public var checkpointFailures = 0
        public var lastCheckpointError: DatabaseError?
        /// Failed commits whose WAL frames could not be overwritten at once (the writer's own write failed too).
        public var unoverwrittenFailures = 0
    }

    /// The writer's counters.
    public var statistics: Statistics { writer.state.withLock { $0.statistics } }

    /// Opens (creating, mode 0640, its directory entry fsynced) `fileName` in `directory` and migrates it to
    /// `schema`. `quickCheck` runs `PRAGMA quick_check` first: a damaged file is refused, never written to.
    public init(
        directory: URL, fileName: String, schema: Schema, readers: Int = 2, quickCheck: Bool = true,
        checkpointFrames: Int32 = 2_000, checkpointIdle: Duration = .milliseconds(500)
    ) throws(DatabaseError) {
        let dir = directory.standardizedFileURL.path
        guard let real = realpath(dir, nil) else {
            throw DatabaseError(
                operation: "open the directory of", path: dir + "/" + fileName, code: SQLITE_CANTOPEN,
                message: String(cString: strerror(errno)), systemErrno: errno)
        }
        let resolved = String(cString: real)
        free(real)
        path = (resolved == "/" ? "" : resolved) + "/" + fileName
        self.checkpointFrames = checkpointFrames
        self.schema = schema
        try Self.create(path: path, directory: resolved)
        let connection = try Connection(path: path, readOnly: false)
        // Checked before anything is written to it (switching a file to WAL rewrites its header).
        if quickCheck { try Self.check(connection) }
        try Self.configure(connection, writer: true)
        try Self.migrate(connection, to: schema)
        writer = Writer(connection: connection, checkpointFrames: checkpointFrames, checkpointIdle: checkpointIdle)
        var made: [Reader] = []
        for i in 0..<max(1, readers) {
            let c = try Connection(path: path, readOnly: false)
            try Self.configure(c, writer: false)
            made.append(Reader(connection: c, label: "lastset.db.reader\(i)"))
        }
        self.readers = made
        // The first commit of a new WAL fsyncs its header and directory too: paid here, not by the first job.
        try writer.housekeeping()
    }

    /// Creates the file (0640: the WAL and shared-memory files SQLite makes take its mode) and makes its
    /// directory entry durable; refuses a link or anything but a regular file there.
    static func create(path: String, directory: String) throws(DatabaseError) {
        var st = stat()
        if lstat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFREG else {
                let isLink = (st.st_mode & S_IFMT) == S_IFLNK
                throw DatabaseError(
                    operation: "open", path: path, code: isLink ? DatabaseError.cantOpenSymlink : SQLITE_CANTOPEN,
                    message: "not a regular file")
            }
            return
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o640)
        guard fd >= 0 else {
            if errno == EEXIST { return }
            throw DatabaseError(
                operation: "create", path: path, code: SQLITE_CANTOPEN, message: String(cString: strerror(errno)),
                systemErrno: errno)
        }
        Glibc.close(fd)
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if dfd >= 0 { Glibc.close(dfd) } }
        guard dfd >= 0, fsync(dfd) == 0 else {
            throw DatabaseError(
                operation: "fsync the directory of", path: path, code: SQLITE_IOERR | (5 << 8),
                message: String(cString: strerror(errno)), systemErrno: errno)
        }
    }

    static func configure(_ c: Connection, writer: Bool) throws(DatabaseError) {
        sqlite3_busy_timeout(c.handle, 5_000)
        try c.execute("PRAGMA foreign_keys = ON", operation: "configure")
        if writer {
            let mode = try c.first("PRAGMA journal_mode = WAL", operation: "switch to WAL mode") { $0.text(0) } ?? nil
            guard mode == "wal" else {
                throw DatabaseError(
                    operation: "switch to WAL mode", path: c.path, code: SQLITE_CANTOPEN,
                    message: "the journal mode stayed \(mode ?? "unknown")")
            }
            try c.execute("PRAGMA synchronous = FULL; PRAGMA journal_size_limit = 33554432", operation: "configure")
        } else {
            try c.execute("PRAGMA query_only = 1", operation: "configure")
        }
    }

    /// `PRAGMA quick_check`: anything but "ok" refuses the file.
    static func check(_ c: Connection) throws(DatabaseError) {
        var problems: [String] = []
        try c.rows("PRAGMA quick_check(5)", operation: "check") { row in
            if let t = row.text(0), t != "ok" { problems.append(t) }
            return true
        }
        guard problems.isEmpty else {
            throw DatabaseError(
                operation: "check", path: c.path, code: SQLITE_CORRUPT,
                message: "the integrity check found: " + problems.joined(separator: "; "))
        }
    }

    /// Runs the migrations the file has not had yet, each in its own transaction with its version.
    private static func migrate(_ c: Connection, to schema: Schema) throws(DatabaseError) {
        let current = try c.first("PRAGMA user_version", operation: "read the schema version of") { Int($0.int64(0)) } ?? 0
        let application =
            try c.first("PRAGMA application_id", operation: "read the application id of") {
                Int32(truncatingIfNeeded: $0.int64(0))
            } ?? 0
        guard application == 0 || application == schema.applicationID else {
            throw DatabaseError(
                operation: "open", path: c.path, code: 0,
                message: "it is not \(schema.name) (application id \(application), expected \(schema.applicationID))")
        }
        guard current <= schema.version else {
            throw DatabaseError(
                operation: "open", path: c.path, code: 0,
                message:
                    "its schema is version \(current), written by a newer lastsetd; this one knows versions up to \(schema.version) and never downgrades"
            )
        }
        try c.execute(
            "CREATE TABLE IF NOT EXISTS store_housekeeping (id INTEGER PRIMARY KEY CHECK (id = 1), writes INTEGER NOT NULL) STRICT",
            operation: "prepare")
        guard current < schema.version else { return }
        for version in (current + 1)...schema.version {
            do throws(DatabaseError) {
                try c.execute("BEGIN IMMEDIATE", operation: "begin migration \(version) of")
                try c.execute(schema.migrations[version - 1], operation: "migrate to schema \(version)")
                try c.execute(
                    "PRAGMA user_version = \(version); PRAGMA application_id = \(schema.applicationID)",
                    operation: "migrate to schema \(version)")
                try c.execute("COMMIT", operation: "commit migration \(version) to")
            } catch {
                if !c.isAutocommit { try? c.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// Runs `work` in the next transaction of the writer and returns what it returned once that transaction is
    /// committed and durable. Throws what `work` threw (its writes then undone, the others' kept), or the
    /// `DatabaseError` of a commit that failed (every write of that commit then failed).
    ///
    /// `durable: false` (a replay's per-frame journal events, which a later durable commit covers): the caller is
    /// resumed once the transaction is in the WAL — it survives the process being killed, not a power loss —
    /// without waiting for an fsync of its own. A transaction holding any durable write is durable.
    @discardableResult
    public func write<T: Sendable>(durable: Bool = true, _ work: @escaping @Sendable (Connection) throws -> T) async throws
        -> T
    {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
            writer.submit(PendingWrite(durable: durable, work: work, complete: { c.resume(with: $0) }))
        }
    }

    /// `write` for callers that cannot wait asynchronously (start-up; a device connection's own queue, before it
    /// sends a frame): blocks the calling thread until the transaction holding `work` is committed (durable unless
    /// `durable` is false). Never call it on the cooperative pool.
    @discardableResult
    public func writeNow<T>(durable: Bool = true, _ work: @escaping (Connection) throws -> T) throws -> T {
        let box = UncheckedBox<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let pending = PendingWrite<T>(
            durable: durable, work: work,
            complete: {
                box.value = $0
                done.signal()
            })
        writer.submit(pending)
        done.wait()
        return try box.value!.get()
    }

    /// Queues a write without waiting for it: `done` is called on the writer's queue once its transaction is
    /// committed (nil) or has failed. Writes are committed in the order they were queued, so a later write a
    /// caller waits for covers this one.
    public func submit(
        durable: Bool = true, _ work: @escaping @Sendable (Connection) throws -> Void,
        done: @escaping @Sendable ((any Error)?) -> Void
    ) {
        writer.submit(
            PendingWrite<Void>(
                durable: durable, work: work,
                complete: {
                    switch $0 {
                    case .success: done(nil)
                    case .failure(let e): done(e)
                    }
                }))
    }

    /// Runs `work` on a reader connection inside one read transaction (a consistent snapshot).
    public func read<T: Sendable>(_ work: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let reader = nextReader.withLock { i -> Reader in
            i = (i + 1) % readers.count
            return readers[i]
        }
        return try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
            reader.queue.async { c.resume(with: Result { try reader.run(work) }) }
        }
    }

    /// `read` blocking the calling thread (start-up).
    public func readNow<T>(_ work: (Connection) throws -> T) throws -> T {
        let reader = readers[0]
        return try reader.queue.sync { try reader.run(work) }
    }

    /// Closes the database: writes already queued are committed first, later ones fail (`closed`); the WAL is
    /// checkpointed into the file and removed, so a clean stop leaves one file. Idempotent.
    /// Returns the checkpoint's error when the WAL could not be folded in (it then stays beside the file and is
    /// replayed at the next open: nothing is lost).
    @discardableResult
    public func close() -> DatabaseError? {
        let failure = writer.close()
        for r in readers { r.close() }
        return failure
    }

    /// The error of a call made after `close`.
    static func closedError(_ path: String) -> DatabaseError {
        DatabaseError(operation: "use", path: path, code: SQLITE_MISUSE, message: "the database is closed")
    }
}
