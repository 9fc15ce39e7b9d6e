import Foundation
import LastsetCore
import LastsetFormats

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's "Application Support": where templates and the audit log live.
public enum DataDirectory {
    /// `--data-dir` if given, else `$STATE_DIRECTORY` (systemd's `StateDirectory=`; the first entry if
    /// several), else Foundation's application support directory + `/lastset`.
    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let explicit, !explicit.isEmpty { return URL(fileURLWithPath: explicit, isDirectory: true) }
        if let state = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !state.isEmpty {
            return URL(fileURLWithPath: String(state), isDirectory: true)
        }
        let base =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".local/share")
        return base.appendingPathComponent("lastset", isDirectory: true)
    }
}

/// An exclusive lock on a data directory, held for the life of the process: two daemons on one directory would
/// hand out the same version numbers and overwrite each other's templates.
///
/// `flock` on `<data>/lastsetd.lock`; the kernel drops it when the process dies, however it dies, so a crash
/// never leaves a stale lock. The file records who holds it (pid and since when) for the refusal message.
public final class DataDirectoryLock: Sendable {
    /// The lock file's name inside the data directory.
    public static let fileName = "lastsetd.lock"
    /// The locked directory.
    public let directory: URL
    private let fd: Int32

    /// Takes the lock (creating the directory and the lock file) or throws `.held` naming the holder.
    public init(directory: URL, now: Date = Date()) throws(DataDirectoryLockError) {
        self.directory = directory
        do {
            try DataDirectory.makeDirectory(directory)
        } catch {
            throw .storage(error)
        }
        let path = directory.appendingPathComponent(Self.fileName).path
        // O_NOFOLLOW: a planted link must not make us lock (and write) some other file.
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw .storage(StorageError(operation: "open lock file", path: path, errno: errno)) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = Self.readAll(fd)
            close(fd)
            guard code == EWOULDBLOCK else { throw .storage(StorageError(operation: "lock", path: path, errno: code)) }
            throw .held(directory: directory.path, holder: holder.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let record = "pid \(getpid()) since \(TimeText.iso8601(now))\n"
        _ = ftruncate(fd, 0)
        _ = record.withCString { pwrite(fd, $0, strlen($0), 0) }
        self.fd = fd
    }

    deinit { close(fd) }

    private static func readAll(_ fd: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: 256)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? String(decoding: bytes[0..<n], as: UTF8.self) : ""
    }
}

/// Why the data directory could not be locked.
public enum DataDirectoryLockError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another process holds the lock; `holder` is what it recorded ("pid 123 since 2026-…"), possibly empty.
    case held(directory: String, holder: String)
    /// The directory or lock file could not be created or opened.
    case storage(StorageError)

    public var description: String {
        switch self {
        case .held(let directory, let holder):
            return "the data directory \(directory) is in use by another lastsetd"
                + (holder.isEmpty ? "" : " (\(holder))") + "; two daemons must never share one data directory"
        case .storage(let e): return e.description
        }
    }
}
