import Foundation
import LastsetCore
import LastsetStore

/// The running replays' journals, as rows of the data directory's database: `replay_journal` holds a replay's
/// intent (committed with its audit intent, durably, before the first write frame), `replay_event` one row per
/// transition after it. The replay's outcome commit removes both (with the outcome record and the device state),
/// so a journal still there at start-up is a replay the daemon did not finish: `Engine.recoverInterrupted` turns
/// it into an "interrupted" audit record and marks the device page unverified, in one commit.
///
/// Transitions are committed without an fsync of their own (`Database.write(durable: false)`): in the WAL, they
/// survive the daemon being killed, and the outcome's durable commit covers them. One that must exist before a
/// frame goes out (a write's intent, a step's) is waited for; a step's answer and the final pass are queued at
/// once; an answer, a window's read-back, a re-plan, a restore and the end are kept back and committed with the
/// next of those (`ReplayEvent.journaling`): one commit per write request instead of three.
public struct ReplayJournal: Sendable {
    /// The database holding the journals.
    public let database: Database

    /// The journals in `database`.
    public init(database: Database) {
        self.database = database
    }

    /// A journal's intent row, made on the caller's thread (the intent lists every register).
    public struct IntentRow: Sendable {
        let job: String
        let time: Int64
        let device: String
        let pageId: String
        /// The intent's journal line (bound as TEXT).
        let line: [UInt8]

        /// The row of `intent`.
        public init(_ intent: ReplayIntent) {
            job = intent.job
            time = RecordStore.milliseconds(intent.time)
            device = intent.device
            pageId = intent.pageId
            line = ReplayEvent(.intent, intent: intent).journalLine
        }
    }

    /// Inserts a journal's intent inside the caller's transaction.
    public static func insert(_ row: IntentRow, on c: Connection) throws(DatabaseError) {
        try c.run(
            "INSERT INTO replay_journal (job, started_at, device, page_id, intent) VALUES (?, ?, ?, ?, ?)", .text(row.job),
            .integer(row.time), .text(row.device), .text(row.pageId), .utf8(row.line))
    }

    /// Removes a job's journal, its transitions with it, inside the caller's transaction.
    static func remove(job: String, on c: Connection) throws(DatabaseError) {
        try c.run("DELETE FROM replay_journal WHERE job = ?", .text(job))
    }

    /// One running replay's journal, once its intent is committed.
    public final class Entry: @unchecked Sendable {
        /// The replay's job.
        public let job: String
        private let database: Database
        private let lock = NSLock()
        private var seq = 0
        private var failure: (any Error)?

        init(job: String, database: Database) {
            self.job = job
            self.database = database
        }

        /// Transitions journaled but not yet handed to the writer, with their `seq`: those that may wait
        /// (`ReplayEvent.journaling`) go with the next one that may not.
        private var waiting: [(seq: Int, line: [UInt8])] = []

        /// Journals one transition after the ones before it. `beforeFrame`: it must exist before a frame goes out,
        /// so this returns once it is committed (blocking the calling thread: call it on a device connection's
        /// queue, never on the cooperative pool); otherwise it is queued, or kept until the next transition that
        /// is not (`ReplayEvent.journaling`: an answer or a read-back lost with the daemon only leaves the record
        /// more cautious, "sent, no answer" / "not read back"). The transitions kept go first, in one commit with
        /// it. False when it, or a transition before it, could not be journaled — the replay then sends nothing
        /// further.
        public func append(_ event: ReplayEvent, beforeFrame: Bool) -> Bool {
            let line = event.journalLine
            let urgency: ReplayEvent.Journaling = beforeFrame ? .beforeFrame : event.journaling
            let batch: [(seq: Int, line: [UInt8])]? = lock.withLock {
                guard failure == nil else { return nil }
                seq += 1
                waiting.append((seq, line))
                guard urgency != .mayWait else { return [] }
                defer { waiting = [] }
                return waiting
            }
            guard let batch else { return false }
            guard !batch.isEmpty else { return true }
            let job = self.job
            let work: @Sendable (Connection) throws -> Void = { c in
                for (seq, line) in batch {
                    try c.run(
                        "INSERT INTO replay_event (job, seq, event) VALUES (?, ?, ?)", .text(job), .integer(seq), .utf8(line))
                }
            }
            if urgency == .beforeFrame {
                do {
                    try database.writeNow(durable: false, work)
                } catch {
                    lock.withLock { failure = failure ?? error }
                }
            } else {
                database.submit(durable: false, work) { [self] error in
                    if let error { lock.withLock { failure = failure ?? error } }
                }
            }
            return lock.withLock { failure == nil }
        }

        /// Transitions still kept back (the outcome's commit, which removes the journal, makes them moot).
        public var kept: Int { lock.withLock { waiting.count } }
    }

    /// The entry of a replay whose intent was committed.
    public func entry(job: String) -> Entry { Entry(job: job, database: database) }

    /// A journal left by a replay that did not finish.
    public struct Leftover: Sendable {
        /// Its job.
        public var job: String
        /// Its transitions folded (`intent` nil when its intent line did not decode).
        public var ledger: ReplayLedger
        /// Transitions that did not decode (reported, never silently dropped).
        public var unreadable: Int
    }

    /// Journals left by replays that did not finish, folded, oldest first.
    public func leftovers() async throws -> [Leftover] {
        try await database.read { c in
            var journals: [(job: String, intent: String)] = []
            try c.rows("SELECT job, intent FROM replay_journal ORDER BY started_at, job") { row in
                journals.append((row.text(0) ?? "", row.text(1) ?? ""))
                return true
            }
            let decoder = APICoding.decoder()
            var out: [Leftover] = []
            for (job, intentLine) in journals {
                var events: [ReplayEvent] = []
                var unreadable = 0
                if let e = try? decoder.decode(ReplayEvent.self, from: Data(intentLine.utf8)) {
                    events.append(e)
                } else {
                    unreadable += 1
                }
                try c.rows("SELECT event FROM replay_event WHERE job = ? ORDER BY seq", .text(job)) { row in
                    if let text = row.text(0), let e = try? decoder.decode(ReplayEvent.self, from: Data(text.utf8)) {
                        events.append(e)
                    } else {
                        unreadable += 1
                    }
                    return true
                }
                out.append(Leftover(job: job, ledger: ReplayLedger(events: events), unreadable: unreadable))
            }
            return out
        }
    }
}
