import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// A failed SQLite call: what was being done, on which file, SQLite's (extended) result code and message, and
/// the errno of the failing system call when SQLite recorded one.
public struct DatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What a result code means for the caller.
    public enum Kind: String, Hashable, Sendable {
        /// SQLITE_FULL: the disk (or the file's quota) is full.
        case full
        /// SQLITE_IOERR_*: a read, write, fsync or lock on the file failed.
        case ioError
        /// SQLITE_CORRUPT / SQLITE_NOTADB: the file is not a sound database.
        case corrupt
        /// SQLITE_BUSY / SQLITE_LOCKED: another connection holds the lock past the busy timeout.
        case busy
        /// SQLITE_CANTOPEN (a link refused, a missing directory, no permission).
        case cannotOpen
        /// SQLITE_READONLY / SQLITE_PERM.
        case readOnly
        /// SQLITE_CONSTRAINT_*: a row broke a rule of the schema.
        case constraint
        /// The schema is newer than this build knows, or the file is not what it should be.
        case schema
        /// Anything else (SQLITE_ERROR for a bad statement, SQLITE_NOMEM, SQLITE_MISUSE, …).
        case other
    }

    /// What was being done ("open", "commit to", "read from", …), for the message.
    public var operation: String
    /// The database file.
    public var path: String
    /// SQLite's extended result code (0 for errors of our own, such as a schema that is too new).
    public var code: Int32
    /// SQLite's message (`sqlite3_errmsg`) or ours.
    public var message: String
    /// The errno of the system call that failed, when SQLite recorded one (`sqlite3_system_errno`), else 0.
    public var systemErrno: Int32

    /// Sets every field.
    public init(operation: String, path: String, code: Int32, message: String, systemErrno: Int32 = 0) {
        self.operation = operation
        self.path = path
        self.code = code
        self.message = message
        self.systemErrno = systemErrno
    }

    /// The error of the last failed call on `handle` (nil handle: the open itself failed without one).
    init(operation: String, path: String, code: Int32, handle: OpaquePointer?) {
        self.operation = operation
        self.path = path
        self.code = code
        if let handle {
            message = String(cString: sqlite3_errmsg(handle))
            let kept = sqlite3_system_errno(handle)
            systemErrno = kept != 0 ? kept : SystemErrorLog.take()
        } else {
            message = String(cString: sqlite3_errstr(code))
            systemErrno = SystemErrorLog.take()
        }
    }

    /// The kind of failure, from the primary result code.
    public var kind: Kind {
        switch code & 0xFF {
        case 0: return .schema
        case SQLITE_FULL: return .full
        case SQLITE_IOERR: return .ioError
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_CANTOPEN: return .cannotOpen
        case SQLITE_READONLY, SQLITE_PERM: return .readOnly
        case SQLITE_CONSTRAINT: return .constraint
        default: return .other
        }
    }

    /// The errno that best says what happened, for callers that speak errno: the system call's when SQLite kept
    /// it, else one standing for the kind (ENOSPC for a full disk, EIO, EBUSY, ELOOP for a refused link, …).
    public var errno: Int32 {
        if systemErrno != 0 { return systemErrno }
        if code == Self.cantOpenSymlink { return ELOOP }
        switch kind {
        case .full: return ENOSPC
        case .ioError: return EIO
        case .corrupt: return EBADMSG
        case .busy: return EBUSY
        case .cannotOpen: return ENOENT
        case .readOnly: return EROFS
        case .constraint, .schema, .other: return EINVAL
        }
    }

    /// SQLITE_CANTOPEN_SYMLINK: the path is a link and SQLITE_OPEN_NOFOLLOW refused it.
    static let cantOpenSymlink: Int32 = SQLITE_CANTOPEN | (6 << 8)

    /// The result code's name: `SQLITE_IOERR_FSYNC`, `SQLITE_FULL`, …
    public var codeName: String {
        if code == 0 { return "lastset" }
        if let name = Self.extendedNames[code] { return name }
        return Self.primaryNames[code & 0xFF] ?? "SQLite code \(code)"
    }

    /// `cannot commit to /var/lib/lastset/lastset.db: database or disk is full (SQLITE_FULL)`, with what it means
    /// where the code says more than SQLite's message.
    public var description: String {
        var text = "cannot \(operation) \(path): \(message) (\(codeName)"
        if systemErrno != 0 { text += ", errno \(systemErrno): \(String(cString: strerror(systemErrno)))" }
        text += ")"
        switch kind {
        case .full: text += "; free space on its file system, nothing was recorded"
        case .corrupt:
            text += "; the database is damaged: restore it from a backup"
        case .busy: text += "; another process holds the database (only lastsetd may write it)"
        default: break
        }
        if code == Self.cantOpenSymlink {
            text = "cannot \(operation) \(path): it is a symbolic link, and links inside the data directory are never followed"
        }
        return text
    }

    private static let primaryNames: [Int32: String] = [
        SQLITE_ERROR: "SQLITE_ERROR", SQLITE_INTERNAL: "SQLITE_INTERNAL", SQLITE_PERM: "SQLITE_PERM",
        SQLITE_ABORT: "SQLITE_ABORT", SQLITE_BUSY: "SQLITE_BUSY", SQLITE_LOCKED: "SQLITE_LOCKED",
        SQLITE_NOMEM: "SQLITE_NOMEM", SQLITE_READONLY: "SQLITE_READONLY", SQLITE_INTERRUPT: "SQLITE_INTERRUPT",
        SQLITE_IOERR: "SQLITE_IOERR", SQLITE_CORRUPT: "SQLITE_CORRUPT", SQLITE_NOTFOUND: "SQLITE_NOTFOUND",
        SQLITE_FULL: "SQLITE_FULL", SQLITE_CANTOPEN: "SQLITE_CANTOPEN", SQLITE_PROTOCOL: "SQLITE_PROTOCOL",
        SQLITE_SCHEMA: "SQLITE_SCHEMA", SQLITE_TOOBIG: "SQLITE_TOOBIG", SQLITE_CONSTRAINT: "SQLITE_CONSTRAINT",
        SQLITE_MISMATCH: "SQLITE_MISMATCH", SQLITE_MISUSE: "SQLITE_MISUSE", SQLITE_NOLFS: "SQLITE_NOLFS",
        SQLITE_AUTH: "SQLITE_AUTH", SQLITE_RANGE: "SQLITE_RANGE", SQLITE_NOTADB: "SQLITE_NOTADB",
    ]

    private static let extendedNames: [Int32: String] = [
        SQLITE_IOERR | (1 << 8): "SQLITE_IOERR_READ", SQLITE_IOERR | (2 << 8): "SQLITE_IOERR_SHORT_READ",
        SQLITE_IOERR | (3 << 8): "SQLITE_IOERR_WRITE", SQLITE_IOERR | (4 << 8): "SQLITE_IOERR_FSYNC",
        SQLITE_IOERR | (5 << 8): "SQLITE_IOERR_DIR_FSYNC", SQLITE_IOERR | (6 << 8): "SQLITE_IOERR_TRUNCATE",
        SQLITE_IOERR | (7 << 8): "SQLITE_IOERR_FSTAT", SQLITE_IOERR | (8 << 8): "SQLITE_IOERR_UNLOCK",
        SQLITE_IOERR | (10 << 8): "SQLITE_IOERR_DELETE", SQLITE_IOERR | (13 << 8): "SQLITE_IOERR_ACCESS",
        SQLITE_IOERR | (15 << 8): "SQLITE_IOERR_LOCK", SQLITE_IOERR | (18 << 8): "SQLITE_IOERR_SHMOPEN",
        SQLITE_IOERR | (19 << 8): "SQLITE_IOERR_SHMSIZE", SQLITE_IOERR | (21 << 8): "SQLITE_IOERR_SHMMAP",
        SQLITE_IOERR | (22 << 8): "SQLITE_IOERR_SEEK", SQLITE_IOERR | (24 << 8): "SQLITE_IOERR_MMAP",
        SQLITE_CORRUPT | (1 << 8): "SQLITE_CORRUPT_VTAB", SQLITE_CORRUPT | (2 << 8): "SQLITE_CORRUPT_SEQUENCE",
        SQLITE_CORRUPT | (3 << 8): "SQLITE_CORRUPT_INDEX",
        SQLITE_BUSY | (1 << 8): "SQLITE_BUSY_RECOVERY", SQLITE_BUSY | (2 << 8): "SQLITE_BUSY_SNAPSHOT",
        SQLITE_BUSY | (3 << 8): "SQLITE_BUSY_TIMEOUT",
        SQLITE_CANTOPEN | (1 << 8): "SQLITE_CANTOPEN_NOTEMPDIR", SQLITE_CANTOPEN | (2 << 8): "SQLITE_CANTOPEN_ISDIR",
        SQLITE_CANTOPEN | (3 << 8): "SQLITE_CANTOPEN_FULLPATH", SQLITE_CANTOPEN | (6 << 8): "SQLITE_CANTOPEN_SYMLINK",
        SQLITE_READONLY | (1 << 8): "SQLITE_READONLY_RECOVERY", SQLITE_READONLY | (3 << 8): "SQLITE_READONLY_ROLLBACK",
        SQLITE_READONLY | (4 << 8): "SQLITE_READONLY_DBMOVED", SQLITE_READONLY | (5 << 8): "SQLITE_READONLY_CANTINIT",
        SQLITE_CONSTRAINT | (3 << 8): "SQLITE_CONSTRAINT_FOREIGNKEY",
        SQLITE_CONSTRAINT | (5 << 8): "SQLITE_CONSTRAINT_NOTNULL",
        SQLITE_CONSTRAINT | (6 << 8): "SQLITE_CONSTRAINT_PRIMARYKEY",
        SQLITE_CONSTRAINT | (8 << 8): "SQLITE_CONSTRAINT_UNIQUE", SQLITE_CONSTRAINT | (1 << 8): "SQLITE_CONSTRAINT_CHECK",
    ]
}
