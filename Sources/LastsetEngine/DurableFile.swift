import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Crash-safe file writes: temp file in the same directory, write, fsync, rename, fsync the directory.
/// After a crash at any instant the target holds either the old or the new content, never a mix.
enum DurableFile {
    /// Prefix of temp files; anything with it is debris from an interrupted write.
    static let tempPrefix = ".tmp-"

    /// Atomically replaces (or creates) `url` with `data`. With `syncDirectory: false` the caller must
    /// fsync the directory itself (to cover more changes in it with one fsync) before relying on it.
    static func write(_ data: Data, to url: URL, mode: mode_t = 0o640, syncDirectory: Bool = true) throws(StorageError) {
        let dir = url.deletingLastPathComponent().path
        let temp = dir + "/" + tempPrefix + url.lastPathComponent + "-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw StorageError(operation: "create", path: temp, errno: errno) }
        var ok = false
        defer {
            if !ok { unlink(temp) }
        }
        let failure: StorageError? = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> StorageError? in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return StorageError(operation: "write", path: temp, errno: errno)
                }
                offset += n
            }
            return fsync(fd) == 0 ? nil : StorageError(operation: "fsync", path: temp, errno: errno)
        }
        if let failure {
            close(fd)
            throw failure
        }
        guard close(fd) == 0 else { throw StorageError(operation: "close", path: temp, errno: errno) }
        guard rename(temp, url.path) == 0 else { throw StorageError(operation: "rename", path: url.path, errno: errno) }
        ok = true
        if syncDirectory { try Self.syncDirectory(dir) }
    }

    /// Appends one record (a whole line) and fsyncs: the audit log's write.
    static func append(_ line: Data, to url: URL) throws(StorageError) {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw StorageError(operation: "open", path: url.path, errno: errno) }
        defer { close(fd) }
        let written = line.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) }
        guard written == line.count else { throw StorageError(operation: "append", path: url.path, errno: errno) }
        guard fsync(fd) == 0 else { throw StorageError(operation: "fsync", path: url.path, errno: errno) }
    }

    /// fsyncs a directory so a rename or unlink in it is durable.
    static func syncDirectory(_ path: String) throws(StorageError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError(operation: "open directory", path: path, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StorageError(operation: "fsync directory", path: path, errno: errno) }
    }

    /// Creates a directory and its parents (mode 0750), with the real errno on failure (Foundation's error
    /// codes are not errnos: its "no permission" 513 became "Unknown error 513").
    static func makeDirectory(_ url: URL) throws(StorageError) {
        let path = url.standardizedFileURL.path
        var st = stat()
        if stat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFDIR else {
                throw StorageError(operation: "create directory", path: path, errno: ENOTDIR)
            }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try makeDirectory(URL(fileURLWithPath: parent, isDirectory: true)) }
        if mkdir(path, 0o750) != 0 && errno != EEXIST {
            throw StorageError(operation: "create directory", path: path, errno: errno)
        }
    }

    /// Removes temp files left by interrupted writes; returns their names.
    static func removeDebris(in dir: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        var removed: [String] = []
        for name in names where name.hasPrefix(tempPrefix) {
            if unlink(dir.appendingPathComponent(name).path) == 0 { removed.append(name) }
        }
        return removed
    }
}

/// A file-system operation that failed, with the path and errno.
public struct StorageError: Error, Hashable, Sendable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32
    public var description: String { "cannot \(operation) \(path): \(String(cString: strerror(errno)))" }
}
