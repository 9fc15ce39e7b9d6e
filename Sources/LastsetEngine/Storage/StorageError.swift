import Foundation
import LastsetStore

#if canImport(Glibc)
    import Glibc
#endif

extension DataDirectory {
    /// Creates a directory and its parents (mode 0750), with the real errno on failure (Foundation's error
    /// codes are not errnos: its "no permission" 513 became "Unknown error 513"). A new directory's entry in its
    /// parent is fsynced: it exists for good before anything is put in it.
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
        try DirectoryHandle.open(parent.isEmpty ? "/" : parent).sync()
    }
}

/// A file-system or database operation that failed, with the path and errno.
public struct StorageError: Error, Hashable, Sendable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32
    /// What the database said (its message, result code and errno), for a failure of the database; nil for a
    /// file operation (its errno says it all).
    public var detail: String?
    /// The `errno` recorded when a file that must be a regular file is not (a FIFO, a device, a directory).
    public static let notARegularFile: Int32 = -1

    /// A failed file operation (`detail`: what to say instead of errno's text).
    public init(operation: String, path: String, errno: Int32, detail: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.detail = detail.map { "cannot \(operation) \(path): \($0)" }
    }

    /// A failed database call (`lastset.db`), with SQLite's message, result code and the system call's errno.
    public init(_ error: DatabaseError) {
        operation = error.operation
        path = error.path
        errno = error.errno
        detail = error.description
    }

    public var description: String {
        if let detail { return detail }
        switch errno {
        case ELOOP:
            return "cannot \(operation) \(path): it is a symbolic link, and links inside the data directory are never followed"
        case Self.notARegularFile: return "cannot \(operation) \(path): not a regular file"
        default: return "cannot \(operation) \(path): \(String(cString: strerror(errno)))"
        }
    }
}

extension StorageError {
    /// `error` as a storage error: a database's error with SQLite's message, code and errno; anything else (a
    /// closure's own error) named with `path`.
    static func of(_ error: any Error, _ path: String) -> StorageError {
        if let e = error as? DatabaseError { return StorageError(e) }
        if let e = error as? StorageError { return e }
        return StorageError(operation: "use", path: path, errno: EIO, detail: "\(error)")
    }
}
