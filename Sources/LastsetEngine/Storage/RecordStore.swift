import Foundation
import LastsetCore
import LastsetStore

/// The data directory's database, `<data>/lastset.db`: the template versions (their checksummed files), the
/// numbers of deleted versions, the audit log, running replays' journals and each device page's state, as rows;
/// each promise one commit. Opened once per daemon; everything writes through its one writer, so the records of
/// one job (a version and its audit record; a replay's outcome, its device state and its journal's end) commit
/// together and jobs running at the same time share commits (docs/ARCHITECTURE.md, "The records").
public enum RecordStore {
    /// The database's file name in the data directory.
    public static let fileName = "lastset.db"
    /// The folder the files of the release before the database are moved into by the migration.
    public static let keptAsideName = "pre-sqlite"

    /// The schema: each migration takes `PRAGMA user_version` one step forward, in one transaction. Never
    /// edited once on main, only appended to.
    public static let schema = Schema(
        name: "the lastset record store", applicationID: 0x4C53_5452,  // "LSTR"
        migrations: [
            """
            CREATE TABLE template_version (
                page_id TEXT NOT NULL,
                host TEXT NOT NULL,
                number INTEGER NOT NULL CHECK (number >= 1),
                archived_at INTEGER,
                file BLOB NOT NULL,
                PRIMARY KEY (page_id, host, number)
            ) STRICT;
            CREATE TABLE template_deleted (
                page_id TEXT NOT NULL,
                host TEXT NOT NULL,
                number INTEGER NOT NULL,
                deleted_at INTEGER NOT NULL,
                PRIMARY KEY (page_id, host, number)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE audit_record (
                seq INTEGER PRIMARY KEY,
                time INTEGER NOT NULL,
                kind TEXT NOT NULL,
                result TEXT NOT NULL,
                page_id TEXT NOT NULL,
                device TEXT NOT NULL,
                who TEXT NOT NULL,
                job TEXT,
                folded INTEGER NOT NULL DEFAULT 0 CHECK (folded IN (0, 1)),
                record TEXT NOT NULL
            ) STRICT;
            CREATE INDEX audit_by_page ON audit_record (page_id, seq);
            CREATE INDEX audit_by_device ON audit_record (device, seq);
            CREATE INDEX audit_by_who ON audit_record (who, seq);
            CREATE INDEX audit_by_result ON audit_record (result, seq);
            CREATE INDEX audit_by_kind ON audit_record (kind, seq);
            CREATE INDEX audit_by_job ON audit_record (job, seq);
            CREATE INDEX audit_by_time ON audit_record (time, seq);
            CREATE TABLE audit_unreadable (
                id INTEGER PRIMARY KEY,
                source TEXT NOT NULL,
                line BLOB NOT NULL
            ) STRICT;
            CREATE TABLE legacy_import (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                imported_at INTEGER NOT NULL,
                summary TEXT NOT NULL
            ) STRICT;
            """,
            // 2: replay journals and device state as rows (issue 20, phase 3).
            """
            CREATE TABLE replay_journal (
                job TEXT PRIMARY KEY,
                started_at INTEGER NOT NULL,
                device TEXT NOT NULL,
                page_id TEXT NOT NULL,
                intent TEXT NOT NULL
            ) STRICT;
            CREATE TABLE replay_event (
                job TEXT NOT NULL REFERENCES replay_journal (job) ON DELETE CASCADE,
                seq INTEGER NOT NULL,
                event TEXT NOT NULL,
                PRIMARY KEY (job, seq)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE device_page_state (
                device TEXT NOT NULL,
                page_id TEXT NOT NULL,
                applied_version_id TEXT,
                state TEXT NOT NULL,
                PRIMARY KEY (device, page_id)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX device_state_by_version ON device_page_state (page_id, applied_version_id);
            """,
            // 3: the audit log's hash chain (issue 24): each record's link to the one before it (`prev`) and its own
            // hash; the links of records removed by retention; the head the daemon wrote last, and whether a
            // verification found the chain broken (writes are refused until an administrator acknowledges it).
            // Rows of earlier releases are chained in `seq` order when the store opens (`AuditChainStore.backfill`).
            """
            ALTER TABLE audit_record ADD COLUMN prev TEXT;
            ALTER TABLE audit_record ADD COLUMN hash TEXT;
            CREATE TABLE audit_pruned (
                seq INTEGER PRIMARY KEY,
                prev TEXT NOT NULL,
                hash TEXT NOT NULL,
                file TEXT NOT NULL
            ) STRICT;
            CREATE TABLE audit_chain (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                head_seq INTEGER NOT NULL,
                head_hash TEXT NOT NULL,
                broken TEXT
            ) STRICT;
            """,
            // 4: what the daemon knows of the machine behind each configured device (issue 23, part 3): the
            // fingerprint it knows it by and the finding still open (`MachineRecord` as JSON).
            """
            CREATE TABLE device_recognition (
                device TEXT PRIMARY KEY,
                record TEXT NOT NULL
            ) STRICT, WITHOUT ROWID;
            """,
            // 5: four-eyes change requests (issue 24, part 2; `ChangeRequestStore`): each request as JSON, when it was
            // filed, and whether an apply has claimed it (a claim left at a stop closes the request as stale).
            """
            CREATE TABLE change_request (
                id TEXT PRIMARY KEY,
                filed_at INTEGER NOT NULL,
                claimed INTEGER NOT NULL DEFAULT 0 CHECK (claimed IN (0, 1)),
                record TEXT NOT NULL
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX change_request_by_filing ON change_request (filed_at, id);
            """,
            // 6: as-found history (issue 23, part 4; `AsFoundStore`): each page of a device as a backup found it, per
            // device and page, numbered (`AsFoundRecord` as JSON); and each device's last backup attempt, for the
            // schedule across restarts and to record a failing device once, not at every attempt.
            """
            CREATE TABLE device_backup (
                device TEXT NOT NULL,
                page_id TEXT NOT NULL,
                number INTEGER NOT NULL CHECK (number >= 1),
                taken_at INTEGER NOT NULL,
                record TEXT NOT NULL,
                PRIMARY KEY (device, page_id, number)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE device_backup_attempt (
                device TEXT PRIMARY KEY,
                attempted_at INTEGER NOT NULL,
                failure TEXT
            ) STRICT, WITHOUT ROWID;
            """,
        ])

    /// Opens (creating, migrating) `<data>/lastset.db`. A damaged database is refused with what to do.
    public static func open(dataDirectory: URL) throws(RecordStoreError) -> Database {
        do {
            try DataDirectory.makeDirectory(dataDirectory)
        } catch {
            throw .storage(error)
        }
        let database: Database
        do {
            database = try Database(directory: dataDirectory, fileName: fileName, schema: schema)
        } catch {
            let keptAside = dataDirectory.appendingPathComponent(keptAsideName)
            var isDirectory: ObjCBool = false
            let hasKeptAside =
                FileManager.default.fileExists(atPath: keptAside.path, isDirectory: &isDirectory) && isDirectory.boolValue
            throw .database(error, dataDirectory: dataDirectory.path, keptAside: hasKeptAside ? keptAside.path : nil)
        }
        do {
            try database.writeNow { c in try AuditChainStore.backfill(c) }
        } catch {
            throw .migration("cannot chain the audit records written before the hash chain: \(error)")
        }
        return database
    }

    /// Milliseconds since 1970, as the database keeps times (the records' own precision).
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// A time kept in milliseconds.
    static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}

/// Why the data directory's database cannot be used.
public enum RecordStoreError: Error, Sendable, CustomStringConvertible {
    /// The data directory cannot be created or opened.
    case storage(StorageError)
    /// The database refused to open (damaged, a link, a newer schema, …); `keptAside`: the folder of the files it
    /// was made from, when there is one.
    case database(DatabaseError, dataDirectory: String, keptAside: String?)
    /// The files of the release before the database could not be imported (nothing was imported).
    case migration(String)

    public var description: String {
        switch self {
        case .storage(let e): return e.description
        case .migration(let why): return "cannot import the data directory's files into \(RecordStore.fileName): \(why)"
        case .database(let e, let dir, let keptAside):
            guard e.kind == .corrupt else { return e.description }
            var text =
                "\(e.description). To recover, stop lastsetd and move \(RecordStore.fileName) (with any \(RecordStore.fileName)-wal and -shm beside it) out of \(dir), then either copy a backup in as \(dir)/\(RecordStore.fileName) (one made with `lastset backup FILE` while lastsetd ran, or `sqlite3 \(dir)/\(RecordStore.fileName) \".backup FILE\"` while it was stopped)"
            if let keptAside {
                text +=
                    ", or move the contents of \(keptAside) back into \(dir): the next start imports those files again (records made since they were moved aside are not in them)"
            }
            return text
        }
    }
}
