import Foundation
import LastsetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A file of lines only ever appended to (a fleet's `audit/<host>.jsonl`): its last line is read from the end, a
/// chunk at a time — never the whole file, however long it grew — and lines are appended in place and fsynced.
/// A last line without its newline (an append cut short by a crash) is cut off before anything else is read or
/// appended, so it is neither a cursor nor glued to the next line. Opened without following a link.
public struct AppendedLines: Sendable {
    public let path: String
    /// Bytes read from the end per step.
    let chunk: Int

    public init(path: String, chunk: Int = 64 << 10) {
        self.path = path
        self.chunk = max(1, chunk)
    }

    /// The last complete line (without its newline); nil when the file is missing or holds none. A torn last line is
    /// cut off first (the file truncated after its last newline, and fsynced).
    public func lastLine() throws(StorageError) -> [UInt8]? {
        let fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw StorageError(operation: "open", path: path, errno: errno)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw StorageError(operation: "stat", path: path, errno: errno) }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw StorageError(operation: "open", path: path, errno: StorageError.notARegularFile)
        }
        var end = Int(st.st_size)
        guard let lastNewline = try lastIndex(of: 0x0A, in: fd, before: end) else {
            if end > 0 { try truncate(fd, to: 0) }
            return nil
        }
        if lastNewline + 1 < end {
            try truncate(fd, to: lastNewline + 1)
            end = lastNewline + 1
        }
        let start = (try lastIndex(of: 0x0A, in: fd, before: lastNewline)).map { $0 + 1 } ?? 0
        return try read(fd, from: start, count: lastNewline - start)
    }

    /// Appends `bytes` (whole lines, each ending in a newline) at the end, creating the file when missing, and fsyncs.
    public func append(_ bytes: [UInt8]) throws(StorageError) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StorageError(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        if let code = FileDescriptorWrite.all(fd, bytes) {
            throw StorageError(operation: "append to", path: path, errno: code)
        }
        guard fsync(fd) == 0 else { throw StorageError(operation: "fsync", path: path, errno: errno) }
    }

    /// The offset of the last `byte` before `end`, reading backwards a chunk at a time.
    private func lastIndex(of byte: UInt8, in fd: Int32, before end: Int) throws(StorageError) -> Int? {
        var upper = end
        while upper > 0 {
            let lower = max(0, upper - chunk)
            let bytes = try read(fd, from: lower, count: upper - lower)
            if let i = bytes.lastIndex(of: byte) { return lower + i }
            upper = lower
        }
        return nil
    }

    private func read(_ fd: Int32, from offset: Int, count: Int) throws(StorageError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw StorageError(operation: "read", path: path, errno: n < 0 ? errno : EIO) }
            done += n
        }
        return out
    }

    private func truncate(_ fd: Int32, to size: Int) throws(StorageError) {
        guard ftruncate(fd, off_t(size)) == 0, fsync(fd) == 0 else {
            throw StorageError(operation: "cut the torn last line of", path: path, errno: errno)
        }
    }
}
