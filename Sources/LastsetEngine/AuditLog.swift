import Foundation
import LastsetCore
import ModbusLink

#if canImport(Glibc)
    import Glibc
#endif

/// The append-only audit log: `<data>/audit.jsonl`, one JSON record per line, fsynced per record.
///
/// An append is whole or absent: a short or failed write is truncated back to where the line started
/// (and then throws), and a tail torn by a crash is ended with a newline before the next record, so
/// records never run together. When the live file would grow past `segmentBytes` it is renamed to
/// the next numbered segment (`audit.000001.jsonl`, …); segments are kept and `read` walks back into
/// them. Reads go backwards from the end in fixed-size chunks: memory is bounded by the records asked
/// for, not by the log's size.
public actor AuditLog {
    public nonisolated let url: URL
    /// The directory holding the live file and its segments.
    public nonisolated let directory: URL
    /// Size at which the live file is rotated into a segment.
    public nonisolated let segmentBytes: Int
    private let executor = DispatchQueueExecutor(label: "lastset.audit")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Default rotation size: 16 MiB.
    public static let defaultSegmentBytes = 16 << 20

    /// Opens (creating the directory) the log under the data directory.
    public init(dataDirectory: URL, segmentBytes: Int = AuditLog.defaultSegmentBytes) throws(StorageError) {
        try DurableFile.makeDirectory(dataDirectory)
        directory = dataDirectory
        url = dataDirectory.appendingPathComponent("audit.jsonl")
        self.segmentBytes = max(1024, segmentBytes)
    }

    /// One record as a JSON line (sorted keys, `AuditRecord`'s Codable shape), written with `JSONWriter`:
    /// a replay of a large page records every register's before/after, and this runs on every job.
    static func line(_ r: AuditRecord) -> [UInt8] {
        var w = JSONWriter(capacity: 512 + r.registers.count * 96)
        r.write(to: &w)
        return w.line()
    }

    /// Appends one record durably; throws (leaving the log as it was) when it cannot. The line is written
    /// out on the caller's thread (a large page's record is a megabyte of JSON): the log's own queue only
    /// appends and fsyncs, so jobs running side by side do not wait on each other's encoding.
    public nonisolated func append(_ record: AuditRecord) async throws(StorageError) {
        try await append(line: Self.line(record))
    }

    private func append(line: [UInt8]) throws(StorageError) {
        let path = url.path
        // A file created here is durable only once its directory entry is: fsync the parent then.
        var existing = stat()
        let isNew = lstat(path, &existing) != 0 && errno == ENOENT
        var fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o640)
        guard fd >= 0 else { throw StorageError(operation: "open", path: path, errno: errno) }
        var size = Self.size(fd)
        if size > 0 && size + line.count > segmentBytes {
            close(fd)
            try rotate()
            fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o640)
            guard fd >= 0 else { throw StorageError(operation: "open", path: path, errno: errno) }
            size = 0
        }
        defer { close(fd) }
        var bytes = line
        // A crash may have torn the last record: end it, so this one starts on its own line.
        if size > 0 && Self.lastByte(fd, size: size) != 0x0A { bytes.insert(0x0A, at: 0) }
        var offset = 0
        var failure: Int32 = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            if n == 0 {
                failure = ENOSPC
                break
            }
            offset += n
        }
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        guard failure != 0 else {
            if isNew || size == 0 { try DurableFile.syncDirectory(directory.path) }
            return
        }
        // Whole or absent: take back the part that was written.
        _ = ftruncate(fd, off_t(size))
        _ = fsync(fd)
        throw StorageError(operation: "append to", path: path, errno: failure)
    }

    /// Renames the live file to the next numbered segment.
    private func rotate() throws(StorageError) {
        let next = (segments().first ?? 0) + 1
        let target = directory.appendingPathComponent(Self.segmentName(next)).path
        guard rename(url.path, target) == 0 else { throw StorageError(operation: "rotate", path: url.path, errno: errno) }
        try DurableFile.syncDirectory(directory.path)
    }

    static func segmentName(_ n: Int) -> String {
        let digits = String(n)
        return "audit." + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".jsonl"
    }

    /// Numbers of the rotated segments, newest first.
    nonisolated func segments() -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.compactMap { name -> Int? in
            guard name.hasPrefix("audit."), name.hasSuffix(".jsonl"), name != "audit.jsonl" else { return nil }
            return Int(name.dropFirst(6).dropLast(6))
        }
        .sorted(by: >)
    }

    private static func size(_ fd: Int32) -> Int {
        var st = stat()
        return fstat(fd, &st) == 0 ? Int(st.st_size) : 0
    }

    private static func lastByte(_ fd: Int32, size: Int) -> UInt8? {
        var byte: UInt8 = 0
        return pread(fd, &byte, 1, off_t(size - 1)) == 1 ? byte : nil
    }

    /// The newest records (at most `limit`), oldest first, walking back from the live file into older
    /// segments; lines that do not parse are skipped and counted. An intent (`started`) whose job has a
    /// later record is folded into that record.
    public func read(limit: Int = 100) -> (records: [AuditRecord], unreadable: Int) {
        read(limit: limit, matching: AuditFilter(), scanLimit: limit)
    }

    /// The newest records passing `filter` (at most `limit`), oldest first. At most `scanLimit` records
    /// are looked at, newest first, so a filter matching nothing costs a bounded walk, not the whole log;
    /// memory is bounded by `limit`.
    public func read(limit: Int, matching filter: AuditFilter, scanLimit: Int) -> (records: [AuditRecord], unreadable: Int) {
        var newestFirst: [AuditRecord] = []
        var scanned = 0
        let bad = scan { r in
            scanned += 1
            if filter.matches(r) { newestFirst.append(r) }
            return newestFirst.count < limit && scanned < scanLimit
        }
        return (newestFirst.reversed(), bad)
    }

    /// The record that ended `job` (a replay's or dry run's outcome, any result but `started`), looked for
    /// newest first back to the job's own intent record (or records older than `since`): a journal found at
    /// start whose outcome is already logged is a replay that finished just before the daemon stopped.
    public func outcome(ofJob job: String, since: Date) -> AuditRecord? {
        var found: AuditRecord?
        scan { r in
            if r.job == job {
                if r.result != .started { found = r }
                return false
            }
            return r.time >= since
        }
        return found
    }

    /// Calls `body` with every record, newest first (live file, then the segments, newest first), until it
    /// returns false; intents whose job has a later record are folded away. Returns the lines that did
    /// not parse.
    @discardableResult
    public func scan(_ body: (AuditRecord) -> Bool) -> Int {
        let decoder = APICoding.decoder()
        var bad = 0
        var completed = Set<String>()
        var going = true
        let files = [url] + segments().map { directory.appendingPathComponent(Self.segmentName($0)) }
        for file in files where going {
            ReverseLines.each(in: file) { line in
                guard let r = try? decoder.decode(AuditRecord.self, from: line) else {
                    bad += 1
                    return true
                }
                if let job = r.job {
                    if r.result == .started {
                        if completed.contains(job) { return true }
                    } else {
                        completed.insert(job)
                    }
                }
                going = body(r)
                return going
            }
        }
        return bad
    }
}

/// Reads a file's lines from the end, in fixed-size chunks.
enum ReverseLines {
    static let chunk = 64 << 10

    /// Calls `body` with each non-empty line, last first, until it returns false.
    static func each(in url: URL, _ body: (Data) -> Bool) {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return }
        var end = Int(st.st_size)
        var carry: [UInt8] = []  // the start of a line whose beginning is further back
        var buffer = [UInt8](repeating: 0, count: chunk)
        while end > 0 {
            let start = max(0, end - chunk)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, end - start, off_t(start)) }
            guard n == end - start else { return }
            var block = Array(buffer[0..<n])
            block.append(contentsOf: carry)
            var lineEnd = block.count
            var i = block.count - 1
            while i >= 0 {
                if block[i] == 0x0A {
                    if lineEnd > i + 1, !body(Data(block[(i + 1)..<lineEnd])) { return }
                    lineEnd = i
                }
                i -= 1
            }
            carry = Array(block[0..<lineEnd])
            end = start
        }
        if !carry.isEmpty { _ = body(Data(carry)) }
    }
}
