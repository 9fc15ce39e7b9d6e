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
        let dir = try DirectoryHandle.open(url.deletingLastPathComponent().path)
        try dir.write(data, to: url.lastPathComponent, mode: mode, sync: syncDirectory)
    }

    /// Appends one record (a whole line) and fsyncs: the audit log's write.
    static func append(_ line: Data, to url: URL) throws(StorageError) {
        // A file created here is durable only once its directory entry is: fsync the parent then.
        var existing = stat()
        let isNew = lstat(url.path, &existing) != 0 && errno == ENOENT
        let fd = open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw StorageError(operation: "open", path: url.path, errno: errno) }
        defer { close(fd) }
        let written = line.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) }
        guard written == line.count else { throw StorageError(operation: "append", path: url.path, errno: errno) }
        guard fsync(fd) == 0 else { throw StorageError(operation: "fsync", path: url.path, errno: errno) }
        if isNew { try syncDirectory(url.deletingLastPathComponent().path) }
    }

    /// fsyncs a directory so a rename or unlink in it is durable.
    static func syncDirectory(_ path: String) throws(StorageError) {
        try DirectoryHandle.open(path).sync()
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
        if mkdir(path, 0o750) != 0 {
            guard errno == EEXIST else { throw StorageError(operation: "create directory", path: path, errno: errno) }
            return
        }
        // The new directory exists for good only once its entry in the parent is durable.
        try syncDirectory(parent.isEmpty ? "/" : parent)
    }

    /// Removes temp files left by interrupted writes; returns their names.
    static func removeDebris(in dir: DirectoryHandle) -> [String] {
        dir.names().filter { $0.hasPrefix(tempPrefix) && dir.remove($0) }
    }
}

/// A file-system operation that failed, with the path and errno.
public struct StorageError: Error, Hashable, Sendable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32
    /// The `errno` recorded when a file that must be a regular file is not (a FIFO, a device, a directory).
    public static let notARegularFile: Int32 = -1

    public var description: String {
        switch errno {
        case ELOOP:
            return "cannot \(operation) \(path): it is a symbolic link, and links inside the data directory are never followed"
        case Self.notARegularFile: return "cannot \(operation) \(path): not a regular file"
        default: return "cannot \(operation) \(path): \(String(cString: strerror(errno)))"
        }
    }
}
