import Foundation
import LastsetCore
import ModbusLink

/// The durable per-device-page state: which template version each device page last took successfully, and
/// which pages an interrupted replay left unverified or a failed one partially written. One file per device page in `<data>/device-state/`
/// (named by a digest of device and page, both also inside the file), replaced crash-safe when that device
/// page changes — a replay rewrites its own page's record only, whatever else is known (one shared file
/// grew with every device and page and was rewritten whole by every replay: 1.2 MB per replay after the
/// benchmark's 10,000-register pages). When the directory is missing or a file in it is unreadable at start,
/// the engine rebuilds everything from the audit log (`Engine.loadDeviceState`). A `device-state.json` of an
/// older version (one file for everything) is split into the directory at open and removed.
public actor DeviceStateStore {
    /// The directory's name in the data directory.
    public static let directoryName = "device-state"
    /// The single file older versions kept (read once, split into the directory, removed).
    public static let legacyFileName = "device-state.json"
    private nonisolated let data: DirectoryHandle
    private var directory: DirectoryHandle?
    private var states: [String: DevicePageState] = [:]
    /// Why the state could not be used at open (nil: loaded, or not there and nothing to rebuild yet).
    public private(set) var loadProblem: String?
    /// Whether the state was found and read at open.
    public private(set) var loadedFromFile = false
    private let executor = DispatchQueueExecutor(label: "lastset.device-state")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// One device page's file.
    struct FileBody: Codable {
        var format: String
        var state: DevicePageState
    }

    /// The legacy file's shape.
    struct LegacyBody: Codable {
        var format: String
        var states: [DevicePageState]
    }

    static let format = "lastset-device-state"

    /// Opens the data directory and reads the state when there (a damaged file is noted, not fatal).
    public init(dataDirectory: URL) throws(StorageError) {
        try DurableFile.makeDirectory(dataDirectory)
        data = try DirectoryHandle.open(dataDirectory.path)
        do {
            if let dir = try data.subdirectory(Self.directoryName, create: false) {
                directory = dir
                _ = DurableFile.removeDebris(in: dir)  // temp files of writes a crash interrupted
                states = try Self.read(dir)
                loadedFromFile = true
            } else if let file = try data.readFile(Self.legacyFileName) {
                let body = try APICoding.decoder().decode(LegacyBody.self, from: file.data)
                guard body.format == Self.format else {
                    throw StorageError(operation: "read", path: Self.legacyFileName, errno: EINVAL)
                }
                for s in body.states { states[Self.key(s.device, s.pageId)] = s }
                // Split into the directory, then drop the old file (its content is now in the directory).
                let dir = try data.subdirectory(Self.directoryName, create: true)!
                directory = dir
                for s in states.values { try Self.save(s, in: dir) }
                try dir.sync()
                _ = data.remove(Self.legacyFileName)
                try data.sync()
                loadedFromFile = true
            }
        } catch {
            states = [:]
            loadProblem = "\(Self.directoryName) cannot be read (\(error))"
        }
    }

    /// Every state in the directory; throws on a file that cannot be read or is not what its name says.
    private static func read(_ dir: DirectoryHandle) throws -> [String: DevicePageState] {
        var states: [String: DevicePageState] = [:]
        for name in dir.names().sorted() where name.hasSuffix(".json") && !name.hasPrefix(".") {
            guard let file = try dir.readFile(name) else { continue }
            let body: FileBody
            do {
                body = try APICoding.decoder().decode(FileBody.self, from: file.data)
            } catch {
                throw StorageError(operation: "read", path: "\(Self.directoryName)/\(name)", errno: EINVAL)
            }
            guard body.format == Self.format, name == Self.fileName(body.state.device, body.state.pageId) else {
                throw StorageError(operation: "read", path: "\(Self.directoryName)/\(name)", errno: EINVAL)
            }
            states[key(body.state.device, body.state.pageId)] = body.state
        }
        return states
    }

    private static func key(_ device: String, _ pageId: String) -> String { device + "\u{0}" + pageId }

    /// The file of a device page: any device label (an ad-hoc endpoint's text included) gives a safe name.
    public static func fileName(_ device: String, _ pageId: String) -> String {
        String(SHA256.hex(Array(key(device, pageId).utf8)).prefix(32)) + ".json"
    }

    /// Every device page's state, sorted by device then page.
    public func all() -> [DevicePageState] {
        states.values.sorted { ($0.device, $0.pageId) < ($1.device, $1.pageId) }
    }

    /// One device page's state (nil: nothing known).
    public func state(device: String, pageId: String) -> DevicePageState? { states[Self.key(device, pageId)] }

    /// Devices recorded as holding the version `versionId` (`3`, `line-7-3`) of `pageId`.
    public func holders(pageId: String, versionId: String) -> [String] {
        all().filter { $0.pageId == pageId && $0.applied?.versionId == versionId }.map(\.device)
    }

    /// Records a successful replay (clears an unverified mark: the page was rewritten and verified). The
    /// new state is the applied template alone, so its file is written out on the caller's thread; the
    /// store's queue only replaces the file.
    public nonisolated func recordApplied(device: String, pageId: String, _ applied: AppliedTemplate) async throws(StorageError)
    {
        var s = DevicePageState(device: device, pageId: pageId)
        s.applied = applied
        try await store(s, body: Self.body(s))
    }

    /// Marks a device page: unverified (an interrupted replay; the version recorded stays), or partially
    /// written (a failed replay that changed registers; no version recorded any more).
    public func mark(_ m: UnverifiedMark) throws(StorageError) {
        var s = states[Self.key(m.device, m.pageId)] ?? DevicePageState(device: m.device, pageId: m.pageId)
        s.setMark(m)
        try store(s)
    }

    /// Clears a device page's mark (a diff showed what it holds; a success replaces the whole state).
    /// Throws when the change could not be saved (the mark is then cleared only until the next start).
    public func clearUnverified(device: String, pageId: String) throws(StorageError) {
        guard var s = states[Self.key(device, pageId)], s.unverified != nil else { return }
        s.unverified = nil
        try store(s)
    }

    /// Every unverified mark.
    public func unverified() -> [UnverifiedMark] { all().compactMap(\.unverified) }

    /// Replaces everything (a rebuild from the audit log) and writes the directory: a file per state,
    /// files of device pages no longer known removed.
    public func replaceAll(_ rebuilt: [DevicePageState]) throws(StorageError) {
        states = [:]
        for s in rebuilt { states[Self.key(s.device, s.pageId)] = s }
        let dir = try openDirectory()
        let keep = Set(states.values.map { Self.fileName($0.device, $0.pageId) })
        for name in dir.names() where name.hasSuffix(".json") && !keep.contains(name) { _ = dir.remove(name) }
        for s in states.values { try Self.save(s, in: dir, sync: false) }
        try dir.sync()
        if data.identity(Self.legacyFileName) != nil {
            _ = data.remove(Self.legacyFileName)
            try data.sync()
        }
        loadedFromFile = true
        loadProblem = nil
    }

    /// Keeps one device page's state and saves it (its file only; in memory even when the save fails).
    private func store(_ s: DevicePageState, body: Data? = nil) throws(StorageError) {
        states[Self.key(s.device, s.pageId)] = s
        try Self.save(s, body: body, in: try openDirectory())
    }

    private func openDirectory() throws(StorageError) -> DirectoryHandle {
        if let directory { return directory }
        let dir = try data.subdirectory(Self.directoryName, create: true)!
        directory = dir
        return dir
    }

    /// Replaces a device page's file (`body`: its bytes when already written out).
    private static func save(_ s: DevicePageState, body: Data? = nil, in dir: DirectoryHandle, sync: Bool = true)
        throws(StorageError)
    {
        try dir.write(body ?? Self.body(s), to: fileName(s.device, s.pageId), sync: sync)
    }

    /// A device page's file.
    private static func body(_ s: DevicePageState) -> Data {
        var w = JSONWriter(capacity: 256 + 112 * (s.applied?.entries.count ?? 0))
        w.beginObject()
        w.field("format", format)
        w.key("state")
        s.write(to: &w)
        w.endObject()
        return Data(w.bytes)
    }
}
