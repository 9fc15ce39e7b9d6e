import CSQLite
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The errno of the last system call SQLite's unix VFS saw fail, per thread.
///
/// `sqlite3_system_errno` reads `errno` only when the error reaches the API, after SQLite's own clean-up calls
/// (a rollback, an unlock) may have overwritten it: an fsync failing with EIO at COMMIT came back with 0. The VFS
/// logs every failing call with the errno it read on the line right after it ("os_unix.c:N: (5)
/// full_fsync(path) - …"), so a log callback installed before the library is initialised keeps that number
/// for the thread, and `DatabaseError` takes it when SQLite kept none.
enum SystemErrorLog {
    private static let last = Mutex<[UInt: Int32]>([:])

    /// Installs the callback once, before the first connection is opened (SQLite accepts it only then).
    static let installed: Bool = {
        csqlite_config_log(
            { _, code, message in
                guard let message, code & 0xFF == SQLITE_IOERR || code & 0xFF == SQLITE_CANTOPEN || code & 0xFF == SQLITE_FULL
                else { return }
                guard let value = SystemErrorLog.errno(in: String(cString: message)) else { return }
                let thread = UInt(pthread_self())
                SystemErrorLog.last.withLock { $0[thread] = value }
            }, nil) == SQLITE_OK
    }()

    /// The errno in a unix VFS log line ("os_unix.c:40123: (28) write(/x/lastset.db-wal) - No space left"), if any.
    static func errno(in message: String) -> Int32? {
        guard message.hasPrefix("os_unix.c:"), let open = message.firstIndex(of: "("),
            let close = message[open...].firstIndex(of: ")")
        else { return nil }
        guard let value = Int32(message[message.index(after: open)..<close]), value > 0 else { return nil }
        return value
    }

    /// The errno the VFS logged last on this thread, forgotten once taken.
    static func take() -> Int32 {
        let thread = UInt(pthread_self())
        return last.withLock { $0.removeValue(forKey: thread) } ?? 0
    }

    /// Forgets what this thread logged (before a transaction, so an old failure is never taken for a new one).
    static func clear() {
        let thread = UInt(pthread_self())
        last.withLock { _ = $0.removeValue(forKey: thread) }
    }
}
