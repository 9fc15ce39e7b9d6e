import Foundation
import LastsetCore
import LastsetFormats
import LastsetStore

/// The append-only audit log: rows of `audit_record` in the data directory's database, one per record, in the
/// order they were recorded (`seq`).
///
/// A record is whole or absent: it is one row of one commit (with the version it archived or the removal it
/// records, when there is one: see `TemplateArchive.store` and `remove`). The record is kept as the JSON
/// `lastset audit --json` shows (`AuditRecord`'s shape, written with `JSONWriter` on the caller's task); the
/// columns beside it (time, kind, result, page, device, principal, job) are what the filters' indexes are built
/// on. An intent (`started`) is marked `folded` in the same commit as the record that completes its job, and
/// reads leave folded rows out (they stay in the table: `sqlite3` shows every record).
public final class AuditLog: Sendable {
    /// The database holding the log.
    public let database: Database

    /// The log in `database`.
    public init(database: Database) {
        self.database = database
    }

    /// A record ready for its row: its JSON made and its columns taken out, off the writer's queue.
    public struct Row: Sendable {
        let time: Int64
        let kind: String
        let result: String
        let pageId: String
        let device: String
        let who: String
        let job: String?
        /// The record's JSON text, as bytes (bound as TEXT and hashed into the chain as they are: never made a
        /// `String` on the way, which would check and copy a replay's 100 KB twice more).
        let json: [UInt8]

        /// The row of `record` (the JSON written with `JSONWriter`: a replay of a large page records every
        /// register's before and after).
        public init(_ record: AuditRecord) {
            var w = JSONWriter(capacity: 1024 + record.registers.count * 128)
            record.write(to: &w)
            self.init(record, json: w.bytes)
        }

        /// The row of `record` kept as `json` (a line of the log files of the release before the database, as it
        /// was written).
        init(_ record: AuditRecord, json: String) {
            self.init(record, json: Array(json.utf8))
        }

        private init(_ record: AuditRecord, json: [UInt8]) {
            time = RecordStore.milliseconds(record.time)
            kind = record.kind.rawValue
            result = record.result.rawValue
            pageId = record.pageId
            device = record.device
            who = record.who
            job = record.job
            self.json = json
        }

        /// The record's JSON, in bytes.
        public var byteCount: Int { json.count }

        /// Whether it completes an intent (a record of a job that is not itself an intent).
        var completes: Bool { job != nil && result != AuditResult.started.rawValue }
    }

    /// Inserts `row` inside the caller's transaction (with the version it belongs to, or alone); folds the intent
    /// it completes.
    static func insert(_ row: Row, on c: Connection) throws {
        let (prev, hash) = try AuditChainStore.link(json: row.json, kind: row.kind, on: c)
        try c.run(
            "INSERT INTO audit_record (time, kind, result, page_id, device, who, job, record, prev, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            .integer(row.time), .text(row.kind), .text(row.result), .text(row.pageId), .text(row.device), .text(row.who),
            .text(row.job), .utf8(row.json), .text(prev), .text(hash))
        try AuditChainStore.advance(
            to: AuditChainHead(seq: c.lastInsertRowID, hash: hash),
            acknowledged: row.kind == AuditKind.chainAcknowledged.rawValue, on: c)
        if row.completes, let job = row.job {
            try c.run(
                "UPDATE audit_record SET folded = 1 WHERE job = ? AND result = ? AND folded = 0", .text(job),
                .text(AuditResult.started.rawValue))
        }
    }

    /// Appends one record: one commit (shared with whatever else commits at that moment); throws, recording
    /// nothing, when it cannot be committed.
    public func append(_ record: AuditRecord) async throws(StorageError) {
        let row = Row(record)
        do {
            try await database.write { c in try Self.insert(row, on: c) }
        } catch {
            throw StorageError.of(error, database.path)
        }
    }

    /// The newest records (at most `limit`), oldest first.
    public func read(limit: Int = 100) async throws(StorageError) -> (records: [AuditRecord], unreadable: Int) {
        try await read(limit: limit, matching: AuditFilter())
    }

    /// The newest records passing `filter` (at most `limit`; `Int.max`: all), oldest first. Each filter is an
    /// indexed column, so a filter matching nothing costs an index lookup, not a walk of the log; the rows the
    /// index gives are decoded and checked with `AuditFilter.matches`, the one rule. `unreadable` counts rows that
    /// did not decode and the lines of the old log files that did not parse when they were imported (kept in
    /// `audit_unreadable`).
    public func read(limit: Int, matching filter: AuditFilter) async throws(StorageError) -> (
        records: [AuditRecord], unreadable: Int
    ) {
        let (conditions, values) = Self.conditions(filter)
        let wanted = max(0, limit)
        let batch = min(max(wanted, 1), 1_000)
        do {
            return try await database.read { c in
                let decoder = APICoding.decoder()
                var newestFirst: [AuditRecord] = []
                var bad = 0
                var before = Int64.max
                while newestFirst.count < wanted {
                    var fetched = 0
                    try c.rows(
                        "SELECT seq, record FROM audit_record WHERE " + (conditions + ["seq < ?"]).joined(separator: " AND ")
                            + " ORDER BY seq DESC LIMIT ?", values + [.integer(before), .integer(Int64(batch))]
                    ) { row in
                        fetched += 1
                        before = row.int64(0)
                        guard let text = row.text(1), let r = try? decoder.decode(AuditRecord.self, from: Data(text.utf8))
                        else {
                            bad += 1
                            return true
                        }
                        if filter.matches(r) { newestFirst.append(r) }
                        return newestFirst.count < wanted
                    }
                    if fetched < batch { break }
                }
                bad += try c.first("SELECT count(*) FROM audit_unreadable") { Int($0.int64(0)) } ?? 0
                return (newestFirst.reversed(), bad)
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
    }

    /// The SQL conditions (ANDed) and their values for `filter`: every given field one indexed condition, each
    /// at least as wide as the filter (`matches` decides). A prefix (`token:`, a job's first characters) is a
    /// range on the index: from the prefix to the prefix followed by the greatest character.
    static func conditions(_ filter: AuditFilter) -> ([String], [SQLValue]) {
        var conditions = ["folded = 0"]
        var values: [SQLValue] = []
        func prefix(_ column: String, _ p: String) {
            conditions.append("\(column) >= ? AND \(column) < ?")
            values += [.text(p), .text(p + "\u{10FFFF}")]
        }
        if let page = filter.page {
            conditions.append("page_id = ?")
            values.append(.text(page))
        }
        if let device = filter.device {
            conditions.append("device = ?")
            values.append(.text(device))
        }
        if let who = filter.who {
            if who.hasSuffix(":") {
                prefix("who", who)
            } else {
                conditions.append("who = ?")
                values.append(.text(who))
            }
        }
        if let job = filter.job, !job.isEmpty { prefix("job", job) }
        // The column keeps milliseconds; a record's own time may carry less than one more: a millisecond of margin
        // each side, `matches` decides.
        if let since = filter.since {
            conditions.append("time >= ?")
            values.append(.integer(RecordStore.milliseconds(since) - 1))
        }
        if let until = filter.until {
            conditions.append("time <= ?")
            values.append(.integer(RecordStore.milliseconds(until) + 1))
        }
        if let results = filter.results {
            conditions.append("result IN (\(results.map { _ in "?" }.joined(separator: ", ")))")
            values += results.map(\.rawValue).sorted().map { .text($0) }
        }
        if let kinds = filter.kinds {
            conditions.append("kind IN (\(kinds.map { _ in "?" }.joined(separator: ", ")))")
            values += kinds.map(\.rawValue).sorted().map { .text($0) }
        }
        return (conditions, values)
    }

    /// Every record of the jobs whose id starts with `prefix` (at most `limit` rows), oldest first, completed intents
    /// included: what a hand-over certificate is made from. A row of them that does not decode is an error, never
    /// left out.
    public func records(ofJob prefix: String, limit: Int = 1_000) async throws(StorageError) -> [AuditRecord] {
        let texts: [String?]
        do {
            texts = try await database.read { c in
                var out: [String?] = []
                try c.rows(
                    "SELECT record FROM audit_record WHERE job >= ? AND job < ? ORDER BY seq LIMIT ?", .text(prefix),
                    .text(prefix + "\u{10FFFF}"), .integer(Int64(limit))
                ) { row in
                    out.append(row.text(0))
                    return true
                }
                return out
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
        let decoder = APICoding.decoder()
        var records: [AuditRecord] = []
        for text in texts {
            guard let text, let record = try? decoder.decode(AuditRecord.self, from: Data(text.utf8)) else {
                throw StorageError(
                    operation: "read the records of job \(prefix) from", path: database.path, errno: EBADMSG,
                    detail: "one of them does not decode")
            }
            records.append(record)
        }
        return records
    }

    /// The record that ended `job` (any result but `started`), if it was recorded: a journal found at start whose
    /// outcome is already logged is a replay that finished just before the daemon stopped.
    public func outcome(ofJob job: String) async throws(StorageError) -> AuditRecord? {
        let text: String?
        do {
            text = try await database.read { c in
                try c.first(
                    "SELECT record FROM audit_record WHERE job = ? AND result != ? ORDER BY seq DESC LIMIT 1", .text(job),
                    .text(AuditResult.started.rawValue)
                ) { row in row.text(0) } ?? nil
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
        guard let text else { return nil }
        do {
            return try APICoding.decoder().decode(AuditRecord.self, from: Data(text.utf8))
        } catch {
            throw StorageError(
                operation: "read the outcome of job \(job) from", path: database.path, errno: EBADMSG,
                detail: "its record does not decode: \(error)")
        }
    }

    /// The records recorded after `cursor` (a record read back from an export), oldest first, completed intents
    /// left out: the fleet's audit export. The cursor is found by its time (indexed) and its whole content among
    /// every row, folded intents included; when it is not found (the export file came from elsewhere), the
    /// records after its time. Without a cursor, every record.
    public func records(after cursor: AuditRecord?) async throws(StorageError) -> [AuditRecord] {
        let cursorTime = cursor.map { RecordStore.milliseconds($0.time) }
        do {
            return try await database.read { c in
                let decoder = APICoding.decoder()
                var found: Int64?
                if let cursor, let cursorTime {
                    try c.rows(
                        "SELECT seq, record FROM audit_record WHERE time BETWEEN ? AND ? ORDER BY seq DESC",
                        .integer(cursorTime - 1), .integer(cursorTime + 1)
                    ) { row in
                        guard let text = row.text(1), let r = try? decoder.decode(AuditRecord.self, from: Data(text.utf8)),
                            r == cursor
                        else { return true }
                        found = row.int64(0)
                        return false
                    }
                }
                var out: [AuditRecord] = []
                let (sql, value): (String, SQLValue) =
                    switch (found, cursorTime) {
                    case (let seq?, _): ("seq > ?", .integer(seq))
                    case (nil, let t?): ("time >= ?", .integer(t - 1))
                    case (nil, nil): ("seq > ?", .integer(0))
                    }
                try c.rows("SELECT record FROM audit_record WHERE folded = 0 AND " + sql + " ORDER BY seq", value) { row in
                    if let text = row.text(0), let r = try? decoder.decode(AuditRecord.self, from: Data(text.utf8)),
                        found != nil || cursor.map({ r.time > $0.time }) ?? true
                    {
                        out.append(r)
                    }
                    return true
                }
                return out
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
    }

    /// Calls `body` with every record (of `kinds`, when given: by index), newest first, until it returns false;
    /// completed intents are left out. Read in batches of `batch` records (memory bounded by the batch, not the
    /// log). Returns the rows that did not decode.
    @discardableResult
    public func scan(kinds: [AuditKind]? = nil, batch: Int = 512, _ body: (AuditRecord) -> Bool) async throws(StorageError)
        -> Int
    {
        var before = Int64.max
        var bad = 0
        let kindValues = (kinds ?? []).map { SQLValue.text($0.rawValue) }
        let kindCondition =
            kinds.map { " AND kind IN (" + Array(repeating: "?", count: $0.count).joined(separator: ", ") + ")" } ?? ""
        let sql = "SELECT seq, record FROM audit_record WHERE folded = 0 AND seq < ?\(kindCondition) ORDER BY seq DESC LIMIT ?"
        while true {
            let cursor = before
            let page: [(Int64, AuditRecord?)]
            do {
                page = try await database.read { c in
                    let decoder = APICoding.decoder()
                    var out: [(Int64, AuditRecord?)] = []
                    try c.rows(sql, [.integer(cursor)] + kindValues + [.integer(Int64(batch))]) { row in
                        let r = row.text(1).flatMap { try? decoder.decode(AuditRecord.self, from: Data($0.utf8)) }
                        out.append((row.int64(0), r))
                        return true
                    }
                    return out
                }
            } catch {
                throw StorageError.of(error, database.path)
            }
            for (seq, record) in page {
                before = seq
                guard let record else {
                    bad += 1
                    continue
                }
                guard body(record) else { return bad }
            }
            if page.count < batch { return bad }
        }
    }
}
