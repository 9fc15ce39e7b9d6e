import CSQLite
import Foundation

/// One SQLite connection (`sqlite3 *`). Not thread-safe by design: the `Database` that owns it calls it only on
/// that connection's own serial queue (the writer's or a reader's), so it is opened without SQLite's mutexes.
/// Statements are prepared once per SQL text and kept.
public final class Connection {
    let handle: OpaquePointer
    /// The database file, for messages.
    public let path: String
    private var statements: [String: OpaquePointer] = [:]

    /// Opens `path` (never through a link: SQLITE_OPEN_NOFOLLOW) with extended result codes; the handle is
    /// freed when opening fails.
    init(path: String, readOnly: Bool) throws(DatabaseError) {
        _ = SystemErrorLog.installed
        var db: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_NOMUTEX
            | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_EXRESCODE
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let error = DatabaseError(operation: "open", path: path, code: rc, handle: db)
            sqlite3_close_v2(db)
            throw error
        }
        handle = db
        self.path = path
    }

    /// False once `close` ran: the handle is freed, nothing may be called on it.
    private(set) var isOpen = true

    deinit { close() }

    /// Finalizes the prepared statements and closes the handle (the last connection to a file checkpoints the
    /// WAL into it and removes it). Idempotent.
    func close() {
        guard isOpen else { return }
        isOpen = false
        for s in statements.values { sqlite3_finalize(s) }
        statements = [:]
        sqlite3_close_v2(handle)
    }

    func error(_ operation: String, _ rc: Int32) -> DatabaseError {
        DatabaseError(operation: operation, path: path, code: rc, handle: handle)
    }

    /// Runs one or more statements without parameters (schema changes, pragmas, BEGIN/COMMIT).
    public func execute(_ sql: String, operation: String = "run a statement on") throws(DatabaseError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(operation, rc) }
    }

    /// The prepared statement of `sql` (prepared once, kept for the connection's life), reset and with `values`
    /// bound to its parameters in order.
    func statement(_ sql: String, _ values: [SQLValue]) throws(DatabaseError) -> OpaquePointer {
        let s: OpaquePointer
        if let cached = statements[sql] {
            s = cached
            sqlite3_reset(s)
            sqlite3_clear_bindings(s)
        } else {
            var made: OpaquePointer?
            let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &made, nil)
            guard rc == SQLITE_OK, let made else { throw error("prepare a statement for", rc) }
            statements[sql] = made
            s = made
        }
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(s, index)
            case .integer(let v): rc = sqlite3_bind_int64(s, index, v)
            case .text(var v): rc = v.withUTF8 { Self.bindText(s, index, $0) }
            case .utf8(let v): rc = v.withUnsafeBufferPointer { Self.bindText(s, index, $0) }
            case .blob(let v): rc = v.withUnsafeBytes { csqlite_bind_blob(s, index, $0.baseAddress, Int32($0.count)) }
            }
            guard rc == SQLITE_OK else { throw error("bind a value for", rc) }
        }
        return s
    }

    /// Binds UTF-8 bytes as TEXT (SQLite copies them; an empty text is bound as such, never as NULL).
    private static func bindText(_ s: OpaquePointer, _ index: Int32, _ utf8: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard let base = utf8.baseAddress, !utf8.isEmpty else { return csqlite_bind_text(s, index, "", 0) }
        return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) { csqlite_bind_text(s, index, $0, Int32(utf8.count)) }
    }

    /// Runs a statement without parameters or rows (BEGIN, COMMIT, SAVEPOINT), prepared once. Not for a pragma that
    /// sets something: SQLite applies those while preparing, so a kept statement would not apply it again.
    func step(_ sql: String, operation: String) throws(DatabaseError) {
        let s = try statement(sql, [])
        defer { sqlite3_reset(s) }
        let rc = sqlite3_step(s)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw error(operation, rc) }
    }

    /// Runs a statement that returns no rows (INSERT, UPDATE, DELETE); returns the rows it changed.
    @discardableResult
    public func run(_ sql: String, _ values: SQLValue..., operation: String = "write to") throws(DatabaseError) -> Int {
        try run(sql, values, operation: operation)
    }

    /// `run` with the values as an array.
    @discardableResult
    public func run(_ sql: String, _ values: [SQLValue], operation: String = "write to") throws(DatabaseError) -> Int {
        let s = try statement(sql, values)
        defer { sqlite3_reset(s) }
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { return Int(sqlite3_changes(handle)) }
            guard rc == SQLITE_ROW else { throw error(operation, rc) }
        }
    }

    /// Calls `body` with each row of a query until it returns false.
    public func rows(
        _ sql: String, _ values: SQLValue..., operation: String = "read from", _ body: (Row) throws(DatabaseError) -> Bool
    ) throws(DatabaseError) {
        try rows(sql, values, operation: operation, body)
    }

    /// `rows` with the values as an array.
    public func rows(
        _ sql: String, _ values: [SQLValue], operation: String = "read from", _ body: (Row) throws(DatabaseError) -> Bool
    ) throws(DatabaseError) {
        let s = try statement(sql, values)
        defer { sqlite3_reset(s) }
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw error(operation, rc) }
            guard try body(Row(statement: s)) else { return }
        }
    }

    /// The first row of a query mapped by `body`, nil when there is none.
    public func first<T>(
        _ sql: String, _ values: SQLValue..., operation: String = "read from", _ body: (Row) throws(DatabaseError) -> T
    ) throws(DatabaseError) -> T? {
        var found: T?
        try rows(sql, values, operation: operation) { (row: Row) throws(DatabaseError) -> Bool in
            found = try body(row)
            return false
        }
        return found
    }

    /// The rowid of the last row inserted on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether no transaction is open (autocommit mode).
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }
}

/// The current row of a query, valid only inside the `rows` body that received it.
public struct Row {
    let statement: OpaquePointer

    /// Whether column `i` is NULL.
    public func isNull(_ i: Int32) -> Bool { sqlite3_column_type(statement, i) == SQLITE_NULL }
    /// Column `i` as an integer (0 for NULL).
    public func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(statement, i) }
    /// Column `i` as an Int (nil for NULL).
    public func int(_ i: Int32) -> Int? { isNull(i) ? nil : Int(sqlite3_column_int64(statement, i)) }
    /// Column `i` as text (nil for NULL).
    public func text(_ i: Int32) -> String? {
        guard let p = sqlite3_column_text(statement, i) else { return nil }
        let n = Int(sqlite3_column_bytes(statement, i))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }
    /// Column `i` as bytes (nil for NULL; a zero-length blob is empty, not nil).
    public func data(_ i: Int32) -> Data? {
        if isNull(i) { return nil }
        let n = Int(sqlite3_column_bytes(statement, i))
        guard n > 0, let p = sqlite3_column_blob(statement, i) else { return Data() }
        return Data(bytes: p, count: n)
    }
}
