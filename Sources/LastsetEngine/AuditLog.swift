import Foundation
import LastsetCore
import ModbusLink

/// The append-only audit log: `<data>/audit.jsonl`, one JSON record per line, fsynced per record.
public actor AuditLog {
    public nonisolated let url: URL
    private let executor = DispatchQueueExecutor(label: "lastset.audit")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens (creating the directory) the log under the data directory.
    public init(dataDirectory: URL) throws(StorageError) {
        try DurableFile.makeDirectory(dataDirectory)
        url = dataDirectory.appendingPathComponent("audit.jsonl")
    }

    /// One record as a JSON line (sorted keys, `AuditRecord`'s Codable shape), written with `JSONWriter`:
    /// a replay of a large page records every register's before/after, and this runs on every job.
    static func line(_ r: AuditRecord) -> Data {
        var w = JSONWriter(capacity: 512 + r.registers.count * 80)
        r.write(to: &w)
        var data = Data(w.bytes)
        data.append(0x0A)
        return data
    }

    /// Appends one record durably.
    public func append(_ record: AuditRecord) throws(StorageError) {
        try DurableFile.append(Self.line(record), to: url)
    }

    /// The newest records (at most `limit`), oldest first; lines that do not parse are skipped and counted.
    public func read(limit: Int = 100) -> (records: [AuditRecord], unreadable: Int) {
        guard let data = try? Data(contentsOf: url) else { return ([], 0) }
        let decoder = APICoding.decoder()
        var records: [AuditRecord] = []
        var bad = 0
        for line in data.split(separator: 0x0A).suffix(max(0, limit)) {
            if let r = try? decoder.decode(AuditRecord.self, from: Data(line)) { records.append(r) } else { bad += 1 }
        }
        return (records, bad)
    }
}
