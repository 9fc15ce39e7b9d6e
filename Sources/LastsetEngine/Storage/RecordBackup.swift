import Foundation
import LastsetCore
import LastsetStore
import LastsetFormats

#if canImport(Glibc)
    import Glibc
#endif

/// A backup of the data directory's database ready to be sent: a consistent copy (`Database.backup`, SQLite's
/// online backup while jobs keep committing), checked, made in the data directory (the one place a hardened
/// daemon may write) and unlinked at once, so only the open descriptor keeps it — nothing is left behind however
/// the transfer ends.
public struct RecordBackup: Sendable {
    /// The open copy (the caller owns it and closes it).
    public let descriptor: Int32
    /// Its size in bytes.
    public let bytes: Int64
    /// SHA-256 of its bytes, lowercase hex (the client checks what it received against it).
    public let sha256: String
    /// Its schema version (`PRAGMA user_version`).
    public let schemaVersion: Int
    /// Database pages copied.
    public let pages: Int
    /// The live database it is a copy of.
    public let databasePath: String
    /// When the copy's read transaction began: every commit acknowledged before is in it.
    public let takenAt: Date

    /// The name prefix of a copy being made in the data directory (one left by a daemon killed meanwhile is removed
    /// by `removeLeftovers`).
    public static let temporaryPrefix = ".lastset-backup-"

    /// Makes the copy of `database` (in its directory), checks it, and returns it open and already unlinked.
    public static func make(database: Database) async throws(StorageError) -> RecordBackup {
        let directory = (database.path as NSString).deletingLastPathComponent
        let name = temporaryPrefix + "\(getpid())-\(UUID().uuidString.prefix(8)).db"
        let path = directory + "/" + name
        let takenAt = Date()
        let made: DatabaseBackup
        do {
            made = try await database.backup(to: path)
        } catch {
            throw StorageError(error)
        }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        let openErrno = errno
        // Unlinked before anything else can fail: from here the descriptor is the copy's only name.
        unlink(path)
        guard fd >= 0 else { throw StorageError(operation: "open the backup", path: path, errno: openErrno) }
        let digest: (bytes: Int64, hex: String)
        do {
            digest = try SHA256.of(descriptor: fd)
        } catch {
            close(fd)
            throw StorageError(operation: "read the backup", path: path, errno: error.errno)
        }
        guard digest.bytes == made.bytes else {
            close(fd)
            throw StorageError(
                operation: "read the backup", path: path, errno: EIO,
                detail: "it holds \(digest.bytes) bytes, \(made.bytes) were written")
        }
        return RecordBackup(
            descriptor: fd, bytes: made.bytes, sha256: digest.hex, schemaVersion: made.schemaVersion,
            pages: made.pages, databasePath: database.path, takenAt: takenAt)
    }

    /// Removes copies left in `dataDirectory` by a daemon stopped while making one; returns their names.
    @discardableResult
    public static func removeLeftovers(dataDirectory: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dataDirectory.path)) ?? []
        return names.filter { $0.hasPrefix(temporaryPrefix) }.filter {
            unlink(dataDirectory.appendingPathComponent($0).path) == 0
        }
    }
}
