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

/// A value handed across threads where the hand-over itself is the synchronisation (a semaphore, a queue).
final class UncheckedBox<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

/// One reader connection and the queue every call on it runs on.
final class Reader: @unchecked Sendable {
    let queue: DispatchQueue
    private let connection: Connection

    init(connection: Connection, label: String) {
        self.connection = connection
        queue = DispatchQueue(label: label)
    }

    private var closed = false

    /// Closes the connection once the reads queued before have run.
    func close() {
        queue.sync {
            closed = true
            connection.close()
        }
    }

    /// Runs `work` in a read transaction (on `queue`).
    func run<T>(_ work: (Connection) throws -> T) throws -> T {
        guard !closed else { throw Database.closedError(connection.path) }
        try connection.execute("BEGIN", operation: "begin reading")
        // Ending a read transaction writes nothing; it cannot fail in a way the read's result depends on.
        defer { try? connection.execute("COMMIT") }
        return try work(connection)
    }
}

/// A write waiting for its transaction.
protocol PendingWork: AnyObject, Sendable {
    /// Whether its caller is answered only after an fsync (see `Database.write(durable:_:)`).
    var durable: Bool { get }
    /// Runs the write on the writer's connection (inside its savepoint); false when it threw.
    func run(on c: Connection) -> Bool
    /// Resumes the caller: with the write's own result, or `failure` (its transaction failed).
    func finish(failure: (any Error)?)
}

final class PendingWrite<T>: PendingWork, @unchecked Sendable {
    let durable: Bool
    private let work: (Connection) throws -> T
    private let complete: (Result<T, any Error>) -> Void
    private var result: Result<T, any Error>?

    init(durable: Bool = true, work: @escaping (Connection) throws -> T, complete: @escaping (Result<T, any Error>) -> Void) {
        self.durable = durable
        self.work = work
        self.complete = complete
    }

    func run(on c: Connection) -> Bool {
        result = Result { try work(c) }
        if case .success = result { return true }
        return false
    }

    func finish(failure: (any Error)?) {
        if let failure, case .success? = result {
            complete(.failure(failure))
        } else {
            complete(result ?? .failure(failure ?? CancellationError()))
        }
    }
}

/// The one writer: a connection, its serial queue, and the writes waiting for the next transaction.
final class Writer: @unchecked Sendable {
    struct State {
        var pending: [any PendingWork] = []
        var draining = false
        var closed = false
        var statistics = Database.Statistics()
    }
    let state = Mutex(State())
    private let queue = DispatchQueue(label: "lastset.db.writer")
    private let connection: Connection
    private let checkpointFrames: Int32
    /// Frames in the WAL after the last commit (set by SQLite's WAL hook, on the writer's queue).
    private let walFrames: UnsafeMutablePointer<Int32>

    /// How long the writer waits without a write before it checkpoints a WAL past `checkpointFrames`.
    private let checkpointIdle: Duration

    init(connection: Connection, checkpointFrames: Int32, checkpointIdle: Duration) {
        self.connection = connection
        self.checkpointFrames = checkpointFrames
        self.checkpointIdle = checkpointIdle
        walFrames = .allocate(capacity: 1)
        walFrames.initialize(to: 0)
        // Registering the hook also turns SQLite's own auto-checkpoint off: a job's commit never checkpoints.
        sqlite3_wal_hook(
            connection.handle,
            { context, _, _, frames in
                context?.assumingMemoryBound(to: Int32.self).pointee = frames
                return SQLITE_OK
            }, walFrames)
    }

    deinit {
        // A closed connection's handle is freed (unhooked in `close`); an open one is unhooked before the counter
        // it writes to goes, and closed by its own deinit.
        if connection.isOpen { sqlite3_wal_hook(connection.handle, nil, nil) }
        walFrames.deallocate()
    }

    /// Queues a write; starts the writer when it is idle.
    func submit(_ work: any PendingWork) {
        let start = state.withLock { s -> Bool? in
            if s.closed { return nil }
            s.pending.append(work)
            s.statistics.queued = s.pending.count
            if s.draining { return false }
            s.draining = true
            return true
        }
        guard let start else { return work.finish(failure: Database.closedError(connection.path)) }
        if start { queue.async { self.drain() } }
    }

    /// Refuses later writes, lets the queued ones commit, then checkpoints the WAL away and closes the connection.
    func close() -> DatabaseError? {
        let already = state.withLock { s -> Bool in
            defer { s.closed = true }
            return s.closed
        }
        guard !already else { return nil }
        return queue.sync { () -> DatabaseError? in
            defer {
                sqlite3_wal_hook(connection.handle, nil, nil)
                connection.close()
            }
            // TRUNCATE: the WAL's content goes into the file and the WAL is emptied; closing then removes it.
            do throws(DatabaseError) {
                try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)", operation: "checkpoint")
                return nil
            } catch {
                return error
            }
        }
    }

    /// Commits what is waiting, then what arrived meanwhile, until nothing waits.
    private func drain() {
        while true {
            let batch = state.withLock { s -> [any PendingWork] in
                let b = s.pending
                s.pending = []
                s.statistics.queued = 0
                if b.isEmpty { s.draining = false }
                return b
            }
            if batch.isEmpty {
                if walFrames.pointee >= checkpointFrames { scheduleIdleCheckpoint() }
                return
            }
            commit(batch)
            if walFrames.pointee >= checkpointFrames &* 8, state.withLock({ $0.pending.isEmpty }) { checkpoint() }
        }
    }

    /// Checkpoints after `checkpointIdle` when no write came meanwhile (on the writer's queue; a write queued since
    /// has started a drain, which schedules again when it ends).
    private func scheduleIdleCheckpoint() {
        let commits = state.withLock { $0.statistics.commits }
        let (seconds, attoseconds) = checkpointIdle.components
        let wait = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        queue.asyncAfter(deadline: .now() + wait) { [weak self] in
            guard let self else { return }
            let idle = self.state.withLock { s in
                !s.closed && !s.draining && s.pending.isEmpty && s.statistics.commits == commits
            }
            if idle, self.walFrames.pointee >= self.checkpointFrames { self.checkpoint() }
        }
    }

    /// One transaction for `batch`: each write in its savepoint, one COMMIT, then every caller resumed.
    private func commit(_ batch: [any PendingWork]) {
        let c = connection
        // Nothing in it waits for durability: committed into the WAL without an fsync (the next durable commit's
        // fsync covers it, the WAL being written in order). Back to FULL after it, whatever happened.
        if !batch.contains(where: { $0.durable }) {
            try? c.execute("PRAGMA synchronous = OFF")
            defer { try? c.execute("PRAGMA synchronous = FULL") }
            return commitTransaction(batch, durable: false)
        }
        commitTransaction(batch, durable: true)
    }

    /// Commits `batch` in one transaction (counted before any caller is resumed).
    private func commitTransaction(_ batch: [any PendingWork], durable: Bool) {
        let c = connection
        SystemErrorLog.clear()
        do {
            try c.execute("BEGIN IMMEDIATE", operation: "begin a transaction on")
        } catch {
            for w in batch { w.finish(failure: error) }
            return
        }
        var ran: [any PendingWork] = []
        for (i, w) in batch.enumerated() {
            do {
                try c.execute("SAVEPOINT write", operation: "begin a write on")
                if w.run(on: c) {
                    try c.execute("RELEASE write", operation: "end a write on")
                    ran.append(w)
                } else {
                    if c.isAutocommit {
                        // SQLite rolled the whole transaction back (a full disk, an I/O error): the writes
                        // run before this one are gone with it; the ones after it get the next transaction.
                        let lost = DatabaseError(
                            operation: "write to", path: c.path, code: SQLITE_ABORT,
                            message: "the transaction was rolled back by an error in another write of it")
                        for r in ran { r.finish(failure: lost) }
                        w.finish(failure: nil)
                        requeue(Array(batch[(i + 1)...]))
                        fail()
                        return
                    }
                    try c.execute("ROLLBACK TO write; RELEASE write", operation: "undo a write on")
                    w.finish(failure: nil)
                }
            } catch {
                // The transaction's own statements failed: nothing of it is kept.
                if !c.isAutocommit { try? c.execute("ROLLBACK") }
                for r in ran { r.finish(failure: error) }
                for rest in batch[i...] { rest.finish(failure: error) }
                fail()
                return
            }
        }
        do {
            try c.execute("COMMIT", operation: "commit to")
        } catch {
            if !c.isAutocommit { try? c.execute("ROLLBACK") }
            // A COMMIT whose fsync failed has written its frames to the WAL, commit mark and checksums included:
            // killed now, the next open would replay them and the transaction its callers were told failed would
            // be there after all. A write of our own goes to the same place in the WAL at once and breaks their
            // checksum chain (the failed callers are answered only after it).
            overwriteFailedFrames()
            for r in ran { r.finish(failure: error) }
            fail()
            return
        }
        state.withLock {
            $0.statistics.commits += 1
            if !durable { $0.statistics.nonDurableCommits += 1 }
            $0.statistics.writes += ran.count
        }
        for r in ran { r.finish(failure: nil) }
    }

    private func fail() { state.withLock { $0.statistics.failedCommits += 1 } }

    /// The writer's own write right after a failed COMMIT (see `commit`); counted when it fails too (the disk is
    /// then failing every write, and the frames may stay).
    private func overwriteFailedFrames() {
        do {
            try writeHousekeeping()
        } catch {
            state.withLock { $0.statistics.unoverwrittenFailures += 1 }
        }
    }

    /// Puts writes back at the front of the queue (their transaction was lost before they ran).
    private func requeue(_ works: [any PendingWork]) {
        guard !works.isEmpty else { return }
        state.withLock {
            $0.pending.insert(contentsOf: works, at: 0)
            $0.statistics.queued = $0.pending.count
        }
    }

    /// A passive checkpoint, then one write of the writer's own so the log's restart is paid now.
    private func checkpoint() {
        do throws(DatabaseError) {
            try connection.execute("PRAGMA wal_checkpoint(PASSIVE)", operation: "checkpoint")
            state.withLock { $0.statistics.checkpoints += 1 }
            try writeHousekeeping()
        } catch {
            // Tried again once the WAL has grown further; nothing is lost (the WAL holds what the file does not).
            state.withLock {
                $0.statistics.checkpointFailures += 1
                $0.statistics.lastCheckpointError = error
            }
        }
    }

    /// The writer's own small write (at open, after a checkpoint): restarts the WAL off a job's path.
    func housekeeping() throws(DatabaseError) {
        var failure: DatabaseError?
        queue.sync {
            do throws(DatabaseError) {
                try writeHousekeeping()
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    private func writeHousekeeping() throws(DatabaseError) {
        try connection.run(
            "INSERT INTO store_housekeeping (id, writes) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET writes = writes + 1",
            operation: "write to")
    }
}
