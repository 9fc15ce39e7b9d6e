import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An open directory inside the data directory, used for `openat`-family calls only: every name below it is
/// opened with `O_NOFOLLOW`, so a link planted inside the data directory is never followed, for reads or writes.
/// (The data directory's own path is the operator's choice and may itself go through links.)
final class DirectoryHandle: Sendable {
    /// The descriptor (O_DIRECTORY); closed when the handle goes.
    let fd: Int32
    /// The path it was opened as, for messages.
    let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// Opens a directory by path (following links in the path: it is where the operator put the data).
    static func open(_ path: String) throws(StorageError) -> DirectoryHandle {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError(operation: "open directory", path: path, errno: errno) }
        return DirectoryHandle(fd: fd, path: path)
    }

    private func child(_ name: String) -> String { path + "/" + name }

    /// errno of a failed `O_NOFOLLOW` open, with a link reported as ELOOP whatever the call said.
    private func noFollowErrno(_ name: String, _ code: Int32) -> Int32 {
        var st = stat()
        if fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, (st.st_mode & S_IFMT) == S_IFLNK { return ELOOP }
        return code
    }

    /// The subdirectory `name` (never a link); nil when missing and `create` is false. A directory created here
    /// is made durable at once: its entry in this directory is fsynced.
    func subdirectory(_ name: String, create: Bool) throws(StorageError) -> DirectoryHandle? {
        var fd = openat(self.fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 && errno == ENOENT {
            guard create else { return nil }
            if mkdirat(self.fd, name, 0o750) != 0 && errno != EEXIST {
                throw StorageError(operation: "create directory", path: child(name), errno: errno)
            }
            try sync()
            fd = openat(self.fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        guard fd >= 0 else {
            throw StorageError(operation: "open directory", path: child(name), errno: noFollowErrno(name, errno))
        }
        return DirectoryHandle(fd: fd, path: child(name))
    }

    /// File identity of what was read: inode, size, modification time in nanoseconds.
    struct FileIdentity: Equatable, Sendable {
        var inode: UInt64
        var size: Int64
        var modified: Int64
        init(_ st: stat) {
            inode = UInt64(st.st_ino)
            size = Int64(st.st_size)
            modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        }
    }

    /// Reads the regular file `name` whole (never through a link; a FIFO or device planted there is refused
    /// without blocking). Returns nil when it does not exist.
    func readFile(_ name: String) throws(StorageError) -> (data: Data, identity: FileIdentity)? {
        let fd = openat(self.fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw StorageError(operation: "open", path: child(name), errno: noFollowErrno(name, errno))
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw StorageError(operation: "stat", path: child(name), errno: errno) }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw StorageError(operation: "read", path: child(name), errno: StorageError.notARegularFile)
        }
        var data = Data(count: Int(st.st_size))
        var offset = 0
        while true {
            if offset == data.count { data.append(contentsOf: [UInt8](repeating: 0, count: 4096)) }
            let n = data.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw StorageError(operation: "read", path: child(name), errno: errno)
            }
            if n == 0 { break }
            offset += n
        }
        data.count = offset
        return (data, FileIdentity(st))
    }

    /// The identity of `name` without following a link (nil when missing).
    func identity(_ name: String) -> FileIdentity? {
        var st = stat()
        guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return FileIdentity(st)
    }

    /// Writes the regular file `name` durably: a temporary file beside it (never through a link) written and
    /// fsynced, renamed over `name`, and this directory fsynced.
    func writeFile(_ name: String, _ data: Data) throws(StorageError) {
        let temporary = ".\(name).\(getpid()).tmp"
        unlinkat(fd, temporary, 0)
        let out = openat(fd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o640)
        guard out >= 0 else { throw StorageError(operation: "create", path: child(temporary), errno: errno) }
        var offset = 0
        var failure: Int32?
        while offset < data.count {
            let n = data.withUnsafeBytes { Glibc.write(out, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                failure = errno
                break
            }
            offset += n
        }
        if failure == nil && fsync(out) != 0 { failure = errno }
        close(out)
        if let failure {
            unlinkat(fd, temporary, 0)
            throw StorageError(operation: "write", path: child(temporary), errno: failure)
        }
        guard renameat(fd, temporary, fd, name) == 0 else {
            let e = errno
            unlinkat(fd, temporary, 0)
            throw StorageError(operation: "rename", path: child(name), errno: e)
        }
        try sync()
    }

    /// fsyncs this directory: renames, unlinks and new entries in it become durable.
    func sync() throws(StorageError) {
        guard fsync(fd) == 0 else { throw StorageError(operation: "fsync directory", path: path, errno: errno) }
    }

    /// Removes the entry `name` (a file or a link, never what a link points to).
    @discardableResult
    func remove(_ name: String) -> Bool { unlinkat(fd, name, 0) == 0 }

    /// The names in this directory (without "." and "..").
    func names() -> [String] {
        let copy = dup(fd)
        guard copy >= 0, let handle = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(handle) }
        rewinddir(handle)
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
