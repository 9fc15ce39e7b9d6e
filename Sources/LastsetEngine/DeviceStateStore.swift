import Foundation
import LastsetCore
import ModbusLink

/// The durable per-device-page state (`<data>/device-state.json`): which template version each device page
/// last took successfully, and which pages an interrupted replay left unverified. Written whole with a
/// crash-safe replace on every change (a few kilobytes); when the file is missing or unreadable at start
/// the engine rebuilds it from the audit log (`Engine.loadDeviceState`).
public actor DeviceStateStore {
    /// The file's name in the data directory.
    public static let fileName = "device-state.json"
    private nonisolated let directory: DirectoryHandle
    private var states: [String: DevicePageState] = [:]
    /// Why the file could not be used at open (nil: loaded, or not there and nothing to rebuild yet).
    public private(set) var loadProblem: String?
    /// Whether the file was found and read at open.
    public private(set) var loadedFromFile = false
    private let executor = DispatchQueueExecutor(label: "lastset.device-state")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// The file's shape.
    struct FileBody: Codable {
        var format: String
        var states: [DevicePageState]
    }

    /// Opens the data directory and reads the file when there (a damaged file is noted, not fatal).
    public init(dataDirectory: URL) throws(StorageError) {
        try DurableFile.makeDirectory(dataDirectory)
        directory = try DirectoryHandle.open(dataDirectory.path)
        do {
            if let file = try directory.readFile(Self.fileName) {
                let body = try APICoding.decoder().decode(FileBody.self, from: file.data)
                guard body.format == "lastset-device-state" else {
                    throw StorageError(operation: "read", path: Self.fileName, errno: EINVAL)
                }
                for s in body.states { states[Self.key(s.device, s.pageId)] = s }
                loadedFromFile = true
            }
        } catch {
            loadProblem = "\(Self.fileName) cannot be read (\(error))"
        }
    }

    private static func key(_ device: String, _ pageId: String) -> String { device + "\u{0}" + pageId }

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

    /// Records a successful replay (clears an unverified mark: the page was rewritten and verified).
    public func recordApplied(device: String, pageId: String, _ applied: AppliedTemplate) throws(StorageError) {
        var s = states[Self.key(device, pageId)] ?? DevicePageState(device: device, pageId: pageId)
        s.applied = applied
        s.unverified = nil
        states[Self.key(device, pageId)] = s
        try save()
    }

    /// Marks a device page unverified (an interrupted replay).
    public func mark(_ m: UnverifiedMark) throws(StorageError) {
        var s = states[Self.key(m.device, m.pageId)] ?? DevicePageState(device: m.device, pageId: m.pageId)
        s.unverified = m
        states[Self.key(m.device, m.pageId)] = s
        try save()
    }

    /// Clears a device page's unverified mark (a replay succeeded, or a diff showed what it holds).
    /// Throws when the change could not be saved (the mark is then cleared only until the next start).
    public func clearUnverified(device: String, pageId: String) throws(StorageError) {
        guard var s = states[Self.key(device, pageId)], s.unverified != nil else { return }
        s.unverified = nil
        states[Self.key(device, pageId)] = s
        try save()
    }

    /// Every unverified mark.
    public func unverified() -> [UnverifiedMark] { all().compactMap(\.unverified) }

    /// Replaces everything (a rebuild from the audit log) and writes the file.
    public func replaceAll(_ rebuilt: [DevicePageState]) throws(StorageError) {
        states = [:]
        for s in rebuilt { states[Self.key(s.device, s.pageId)] = s }
        try save()
        loadedFromFile = true
        loadProblem = nil
    }

    private func save() throws(StorageError) {
        let body = FileBody(format: "lastset-device-state", states: all())
        guard let data = try? APICoding.encoder(pretty: true).encode(body) else {
            throw StorageError(operation: "encode", path: Self.fileName, errno: EINVAL)
        }
        try directory.write(data, to: Self.fileName)
    }
}
