import Foundation
import LastsetCore
import ModbusLink

#if canImport(Glibc)
    import Glibc
#endif

/// The durable side of replay journals: `<data>/journal/<job>.jsonl` holds a running replay's
/// transitions (the intent line fsynced before the first write frame, then one line per transition),
/// and is removed once the replay's audit record is written. A file left at start-up is a replay the
/// daemon did not finish: `Engine.recoverInterrupted` turns it into an "interrupted" audit record and marks
/// the device page unverified in the device state (`DeviceStateStore`) until a replay succeeds or a diff
/// clears it.
public actor ReplayJournal {
    /// `<data>/journal`.
    public nonisolated let directory: URL
    /// `<data>` and `<data>/journal`, opened once: every name below them is opened with `O_NOFOLLOW`, so
    /// a link planted as `journal` or as a journal file is never followed.
    private nonisolated let data: DirectoryHandle
    private nonisolated let journal: DirectoryHandle
    private let executor = DispatchQueueExecutor(label: "lastset.journal")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens (creating) the journal directory.
    public init(dataDirectory: URL) throws(StorageError) {
        directory = dataDirectory.appendingPathComponent("journal")
        try DurableFile.makeDirectory(dataDirectory)
        data = try DirectoryHandle.open(dataDirectory.path)
        guard let journal = try data.subdirectory("journal", create: true) else {
            throw StorageError(operation: "open directory", path: directory.path, errno: ENOENT)
        }
        self.journal = journal
    }

    /// One running replay's journal file.
    public final class Entry: @unchecked Sendable {
        let fd: Int32
        let url: URL
        private let lock = NSLock()
        init(fd: Int32, url: URL) {
            self.fd = fd
            self.url = url
        }
        deinit { close(fd) }

        /// Appends one transition (one write, no fsync: it survives the process being killed).
        func append(_ event: ReplayEvent) throws(StorageError) {
            try append(line: event.journalLine)
        }

        /// Appends one journal line (without its line feed).
        fileprivate func append(line: [UInt8]) throws(StorageError) {
            let ok = lock.withLock { () -> Bool in
                var bytes = line
                bytes.append(0x0A)
                var offset = 0
                while offset < bytes.count {
                    let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { return false }
                    offset += n
                }
                return true
            }
            if !ok { throw StorageError(operation: "append to", path: url.path, errno: errno == 0 ? ENOSPC : errno) }
        }
    }

    /// Creates the job's journal with its intent, fsynced (file and directory) before returning. The
    /// intent's line (every register) is written out on the caller's thread, the file on the journal's queue.
    public nonisolated func begin(_ intent: ReplayIntent) async throws(StorageError) -> Entry {
        try await create(job: intent.job, intentLine: ReplayEvent(.intent, intent: intent).journalLine)
    }

    private func create(job: String, intentLine: [UInt8]) throws(StorageError) -> Entry {
        let name = "\(job).jsonl"
        let url = directory.appendingPathComponent(name)
        let fd = openat(journal.fd, name, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o640)
        guard fd >= 0 else { throw StorageError(operation: "create", path: url.path, errno: errno) }
        let entry = Entry(fd: fd, url: url)
        do throws(StorageError) {
            try entry.append(line: intentLine)
            guard fsync(fd) == 0 else { throw StorageError(operation: "fsync", path: url.path, errno: errno) }
            try journal.sync()
        } catch {
            journal.remove(name)
            throw error
        }
        return entry
    }

    /// Removes a finished replay's journal (its audit record is written, fsynced). The removal is not
    /// fsynced: should a power loss bring the file back, recovery finds the job's outcome in the audit log
    /// and drops the journal without an "interrupted" record (`Engine.recoverInterrupted`).
    public func finish(_ entry: Entry) {
        journal.remove(entry.url.lastPathComponent)
    }

    /// Journals left by replays that did not finish, folded (oldest first).
    public func leftovers() -> [(url: URL, ledger: ReplayLedger)] {
        let names = journal.names().filter { $0.hasSuffix(".jsonl") }
        let decoder = APICoding.decoder()
        var out: [(URL, ReplayLedger)] = []
        for name in names.sorted() {
            let url = directory.appendingPathComponent(name)
            // Never through a link, never a FIFO or device planted there.
            guard let (data, _) = try? journal.readFile(name) else { continue }
            // A torn last line (killed mid-write) is skipped; every earlier line is whole.
            let events = data.split(separator: 0x0A).compactMap { try? decoder.decode(ReplayEvent.self, from: Data($0)) }
            let ledger = ReplayLedger(events: events)
            guard ledger.intent != nil else {
                // Killed before the intent was complete: nothing was written yet.
                journal.remove(name)
                continue
            }
            out.append((url, ledger))
        }
        return out.sorted { ($0.1.intent?.time ?? .distantPast) < ($1.1.intent?.time ?? .distantPast) }
    }

    /// Forgets a recovered journal.
    public func remove(_ url: URL) {
        journal.remove(url.lastPathComponent)
        try? journal.sync()
    }
}
