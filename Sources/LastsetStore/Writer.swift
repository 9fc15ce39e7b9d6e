import CSQLite
import Dispatch
import Foundation
import Synchronization

/// The one writer: a connection, its serial queue, and the writes waiting for the next transaction.
final class Writer: @unchecked Sendable {
    struct State {
        var pending: [any PendingWork] = []
        var draining = false
        var closed = false
        /// An idle checkpoint is scheduled (one at a time: a replay drains a dozen times a second).
        var checkpointArmed = false
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

    /// Checkpoints once `checkpointIdle` passes without a write (on the writer's queue). One timer at a time: when it
    /// finds commits made since it was set, it waits again from then (each drain setting a timer of its own cost a
    /// wake-up of Dispatch's timer thread per commit).
    private func scheduleIdleCheckpoint() {
        let commits = state.withLock { s -> Int? in
            guard !s.checkpointArmed else { return nil }
            s.checkpointArmed = true
            return s.statistics.commits
        }
        guard let commits else { return }
        armIdleCheckpoint(after: commits)
    }

    private func armIdleCheckpoint(after commits: Int) {
        let (seconds, attoseconds) = checkpointIdle.components
        let wait = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        queue.asyncAfter(deadline: .now() + wait) { [weak self] in
            guard let self else { return }
            enum Next {
                case checkpoint
                case wait(Int)
                case done
            }
            let next = self.state.withLock { s -> Next in
                if s.closed || s.draining || !s.pending.isEmpty {
                    // A drain is running or about to: it sets the timer again when it ends.
                    s.checkpointArmed = false
                    return .done
                }
                if s.statistics.commits != commits { return .wait(s.statistics.commits) }
                s.checkpointArmed = false
                return .checkpoint
            }
            switch next {
            case .checkpoint: if self.walFrames.pointee >= self.checkpointFrames { self.checkpoint() }
            case .wait(let seen): self.armIdleCheckpoint(after: seen)
            case .done: break
            }
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
            // The transaction's own statements are prepared once (`step`): a replay makes a commit per write request.
            try c.step("BEGIN IMMEDIATE", operation: "begin a transaction on")
        } catch {
            for w in batch { w.finish(failure: error) }
            return
        }
        var ran: [any PendingWork] = []
        for (i, w) in batch.enumerated() {
            do {
                try c.step("SAVEPOINT write", operation: "begin a write on")
                if w.run(on: c) {
                    try c.step("RELEASE write", operation: "end a write on")
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
            try c.step("COMMIT", operation: "commit to")
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
