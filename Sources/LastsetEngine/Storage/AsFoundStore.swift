import Foundation
import LastsetCore
import LastsetFormats
import LastsetStore

#if canImport(Glibc)
    import Glibc
#endif

/// The as-found history (docs/AS-FOUND.md): rows of `device_backup`, one `AsFoundRecord` per device, page and
/// number, the newest `keep` per device and page; and `device_backup_attempt`, each device's last backup attempt.
/// A record is stored in the same commit as its audit record: both or neither. Kept apart from the template
/// versions: an as-found record is never a page's latest version, never what a replay writes by default.
public struct AsFoundStore: Sendable {
    /// The database holding the records.
    public let database: Database

    /// The store in `database`.
    public init(database: Database) {
        self.database = database
    }

    /// The newest record of a device's page (nil: none).
    public func latest(device: String, pageId: String) async throws(StorageError) -> AsFoundRecord? {
        try await read(
            "SELECT record FROM device_backup WHERE device = ? AND page_id = ? ORDER BY number DESC LIMIT 1", .text(device),
            .text(pageId)
        ).first
    }

    /// One record (nil: no such number).
    public func record(device: String, pageId: String, number: Int) async throws(StorageError) -> AsFoundRecord? {
        try await read(
            "SELECT record FROM device_backup WHERE device = ? AND page_id = ? AND number = ?", .text(device), .text(pageId),
            .integer(number)
        ).first
    }

    /// A device's records, newest first (one page's when `pageId` is given), at most `limit`, without their values.
    public func list(device: String, pageId: String? = nil, limit: Int = 100) async throws(StorageError) -> [AsFoundRecord] {
        let records: [AsFoundRecord]
        if let pageId {
            records = try await read(
                "SELECT record FROM device_backup WHERE device = ? AND page_id = ? ORDER BY number DESC LIMIT ?",
                .text(device), .text(pageId), .integer(limit))
        } else {
            records = try await read(
                "SELECT record FROM device_backup WHERE device = ? ORDER BY taken_at DESC, page_id, number DESC LIMIT ?",
                .text(device), .integer(limit))
        }
        return records.map(\.summary)
    }

    private func read(_ sql: String, _ values: SQLValue...) async throws(StorageError) -> [AsFoundRecord] {
        let texts: [String]
        do {
            texts = try await database.read { c in
                var out: [String] = []
                try c.rows(sql, values) { row in
                    out.append(row.text(0) ?? "")
                    return true
                }
                return out
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
        var records: [AsFoundRecord] = []
        for text in texts {
            do {
                records.append(try APICoding.decoder().decode(AsFoundRecord.self, from: Data(text.utf8)))
            } catch {
                throw StorageError(
                    operation: "read an as-found record from", path: database.path, errno: EIO,
                    detail: "the record does not decode: \(error)")
            }
        }
        return records
    }

    /// Stores `record` as its device page's next number, with the audit record `audit` makes of it, and removes the
    /// oldest beyond `keep`; one commit. Returns the record as stored (its number set).
    public func store(
        _ record: AsFoundRecord, keep: Int, audit: @escaping @Sendable (AsFoundRecord) -> AuditRecord
    ) async throws(StorageError) -> AsFoundRecord {
        let keep = max(1, keep)
        do {
            return try await database.write { c in
                var stored = record
                stored.number =
                    try c.first(
                        "SELECT coalesce(max(number), 0) FROM device_backup WHERE device = ? AND page_id = ?",
                        .text(record.device), .text(record.pageId)
                    ) { ($0.int(0) ?? 0) + 1 } ?? 1
                var w = JSONWriter(capacity: 512 + stored.values.count * 120)
                stored.write(to: &w)
                try c.run(
                    "INSERT INTO device_backup (device, page_id, number, taken_at, record) VALUES (?, ?, ?, ?, ?)",
                    .text(stored.device), .text(stored.pageId), .integer(stored.number),
                    .integer(RecordStore.milliseconds(stored.takenAt)), .utf8(w.bytes))
                try c.run(
                    "DELETE FROM device_backup WHERE device = ? AND page_id = ? AND number <= ?", .text(stored.device),
                    .text(stored.pageId), .integer(stored.number - keep))
                try AuditLog.insert(AuditLog.Row(audit(stored)), on: c)
                return stored
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
    }

    /// Each device's last backup attempt: when, and why it failed (nil: it read every page).
    public func attempts() throws(StorageError) -> [String: (at: Date, failure: String?)] {
        var out: [String: (at: Date, failure: String?)] = [:]
        do {
            try database.readNow { c in
                try c.rows("SELECT device, attempted_at, failure FROM device_backup_attempt") { row in
                    out[row.text(0) ?? ""] = (RecordStore.date(milliseconds: row.int64(1)), row.text(2))
                    return true
                }
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
        return out
    }

    /// One device's last backup attempt (nil: never attempted), read off the caller's thread.
    public func attempt(device: String) async throws(StorageError) -> (at: Date, failure: String?)? {
        do {
            return try await database.read { c in
                try c.first("SELECT attempted_at, failure FROM device_backup_attempt WHERE device = ?", .text(device)) {
                    (RecordStore.date(milliseconds: $0.int64(0)), $0.text(1))
                }
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
    }

    /// Records a device's backup attempt; `audit`, when given, is committed with it (a failure's first record). An
    /// attempt alone only schedules the next one, so it is not synced (`durable: false`): lost at a power cut, the
    /// device is backed up again sooner; with an audit record it is synced with it.
    public func attempted(device: String, at time: Date, failure: String?, audit: AuditRecord? = nil) async throws(
        StorageError
    ) {
        let row = audit.map(AuditLog.Row.init)
        do {
            try await database.write(durable: row != nil) { c in
                try c.run(
                    """
                    INSERT INTO device_backup_attempt (device, attempted_at, failure) VALUES (?, ?, ?)
                    ON CONFLICT (device) DO UPDATE SET attempted_at = excluded.attempted_at, failure = excluded.failure
                    """, .text(device), .integer(RecordStore.milliseconds(time)), failure.map { .text($0) } ?? .null)
                if let row { try AuditLog.insert(row, on: c) }
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
    }
}
