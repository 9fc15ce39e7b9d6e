import Foundation
import LastsetCore
import LastsetFormats
import LastsetStore

/// The per-device-page state: which template version each device page last took successfully, and which pages an
/// interrupted replay left unverified or a failed one partially written. One row of `device_page_state` per device
/// page in the data directory's database (the state as JSON, its applied version beside it for "which machines
/// hold this version" by index), kept in memory for the poller and the API. A replay's state is committed with
/// its outcome record (`Engine.apply`), so the two never disagree; when the table is empty at start while the
/// audit log records replays (the release before the database lost its files, or an administrator emptied it),
/// the engine rebuilds it from the log (`Engine.loadDeviceState`).
public actor DeviceStateStore {
    /// The database holding the state.
    public nonisolated let database: Database
    private var states: [String: DevicePageState] = [:]
    /// Why rows could not be used at open (nil: every row read).
    public private(set) var loadProblem: String?
    /// Whether the table held no row at open.
    public private(set) var wasEmpty: Bool

    /// Reads every device page's state (a row that does not decode is noted in `loadProblem` and left out).
    public init(database: Database) throws(StorageError) {
        self.database = database
        var states: [String: DevicePageState] = [:]
        var bad: [String] = []
        var rows = 0
        do {
            try database.readNow { c in
                try c.rows("SELECT device, page_id, state FROM device_page_state") { row in
                    rows += 1
                    let (device, pageId) = (row.text(0) ?? "", row.text(1) ?? "")
                    if let text = row.text(2),
                        let s = try? APICoding.decoder().decode(DevicePageState.self, from: Data(text.utf8)),
                        s.device == device, s.pageId == pageId
                    {
                        states[Self.key(device, pageId)] = s
                    } else {
                        bad.append("\(device)/\(pageId)")
                    }
                    return true
                }
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
        self.states = states
        wasEmpty = rows == 0
        loadProblem =
            bad.isEmpty
            ? nil
            : "device_page_state: \(bad.count) row\(bad.count == 1 ? "" : "s") cannot be read (\(bad.joined(separator: ", ")))"
    }

    private static func key(_ device: String, _ pageId: String) -> String { device + "\u{0}" + pageId }

    /// Every device page's state, sorted by device then page.
    public func all() -> [DevicePageState] {
        states.values.sorted { ($0.device, $0.pageId) < ($1.device, $1.pageId) }
    }

    /// One device page's state (nil: nothing known).
    public func state(device: String, pageId: String) -> DevicePageState? { states[Self.key(device, pageId)] }

    /// Devices recorded as holding the version `versionId` (`3`, `line-7-3`) of `pageId`, by index.
    public nonisolated func holders(pageId: String, versionId: String) async throws(StorageError) -> [String] {
        do {
            return try await database.read { c in
                var devices: [String] = []
                try c.rows(
                    "SELECT device FROM device_page_state WHERE page_id = ? AND applied_version_id = ? ORDER BY device",
                    .text(pageId), .text(versionId)
                ) { row in
                    devices.append(row.text(0) ?? "")
                    return true
                }
                return devices
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
    }

    /// A state ready for its row: its JSON made on the caller's thread (a 10,000-register page's applied values).
    public struct Row: Sendable {
        let state: DevicePageState
        /// The state's JSON text, as bytes (bound as TEXT).
        let json: [UInt8]

        /// The state's JSON, in bytes.
        public var byteCount: Int { json.count }

        /// The row of `state`.
        public init(_ state: DevicePageState) {
            self.state = state
            var w = JSONWriter(capacity: 256 + 96 * (state.applied?.entries.count ?? 0))
            state.write(to: &w)
            json = w.bytes
        }
    }

    /// Replaces a device page's row inside the caller's transaction.
    static func save(_ row: Row, on c: Connection) throws(DatabaseError) {
        try c.run(
            """
            INSERT INTO device_page_state (device, page_id, applied_version_id, state) VALUES (?, ?, ?, ?)
            ON CONFLICT (device, page_id) DO UPDATE SET applied_version_id = excluded.applied_version_id, state = excluded.state
            """, .text(row.state.device), .text(row.state.pageId), .text(row.state.applied?.versionId), .utf8(row.json))
    }

    /// Keeps a state its caller committed (`save` inside the caller's transaction).
    public func remember(_ s: DevicePageState) {
        states[Self.key(s.device, s.pageId)] = s
    }

    /// The state a successful replay leaves: the applied template alone (a success clears any mark).
    public static func applied(device: String, pageId: String, _ applied: AppliedTemplate) -> DevicePageState {
        var s = DevicePageState(device: device, pageId: pageId)
        s.applied = applied
        return s
    }

    /// The state with the mark `m` set: unverified (an interrupted replay; the version recorded stays), or
    /// partially written (a failed replay that changed registers; no version recorded any more).
    public func marked(_ m: UnverifiedMark) -> DevicePageState {
        var s = states[Self.key(m.device, m.pageId)] ?? DevicePageState(device: m.device, pageId: m.pageId)
        s.setMark(m)
        return s
    }

    /// The state without its mark, nil when it has none (nothing to change).
    public func cleared(device: String, pageId: String) -> DevicePageState? {
        guard var s = states[Self.key(device, pageId)], s.unverified != nil else { return nil }
        s.unverified = nil
        return s
    }

    /// Commits `s` on its own and keeps it.
    public func commit(_ s: DevicePageState) async throws(StorageError) {
        let row = Row(s)
        do {
            try await database.write { c in try Self.save(row, on: c) }
        } catch {
            throw StorageError.of(error, database.path)
        }
        remember(s)
    }

    /// Records a successful replay on its own commit.
    public func recordApplied(device: String, pageId: String, _ applied: AppliedTemplate) async throws(StorageError) {
        try await commit(Self.applied(device: device, pageId: pageId, applied))
    }

    /// Sets the mark `m` on its own commit.
    public func mark(_ m: UnverifiedMark) async throws(StorageError) {
        try await commit(marked(m))
    }

    /// Clears a device page's mark on its own commit (a diff showed what it holds). Throws when the change could
    /// not be committed (the mark then stays).
    public func clearUnverified(device: String, pageId: String) async throws(StorageError) {
        guard let s = cleared(device: device, pageId: pageId) else { return }
        try await commit(s)
    }

    /// Every unverified mark.
    public func unverified() -> [UnverifiedMark] { all().compactMap(\.unverified) }

    /// Replaces every row (a rebuild from the audit log) in one commit.
    public func replaceAll(_ rebuilt: [DevicePageState]) async throws(StorageError) {
        let rows = rebuilt.map(Row.init)
        do {
            try await database.write { c in
                try c.run("DELETE FROM device_page_state")
                for row in rows { try Self.save(row, on: c) }
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
        states = [:]
        for s in rebuilt { states[Self.key(s.device, s.pageId)] = s }
        wasEmpty = rebuilt.isEmpty
        loadProblem = nil
    }
}
