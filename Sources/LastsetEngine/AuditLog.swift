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
        w.beginObject()
        w.field("device", r.device)
        w.field("endpoint", r.endpoint)
        w.key("identity")
        w.beginArray()
        for i in r.identity {
            w.beginObject()
            w.field("address", i.address)
            w.field("registerId", i.registerId)
            w.field("value", i.value)
            w.field("valueData", i.valueData)
            w.endObject()
        }
        w.endArray()
        w.field("kind", r.kind)
        if let m = r.message {
            w.field("message", m)
        }
        w.field("pageHash", r.pageHash)
        w.field("pageId", r.pageId)
        w.key("registers")
        w.beginArray()
        for reg in r.registers {
            w.beginObject()
            if let a = reg.after {
                w.field("after", a)
            }
            if let b = reg.before {
                w.field("before", b)
            }
            w.field("registerId", reg.registerId)
            w.field("status", reg.status)
            w.endObject()
        }
        w.endArray()
        w.field("result", r.result)
        if let v = r.templateVersion {
            w.field("templateVersion", v)
        }
        w.field("time", r.time)
        w.field("unit", r.unit)
        w.field("who", r.who)
        w.endObject()
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
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { d in
            let c = try d.singleValueContainer()
            let s = try c.decode(String.self)
            guard let date = TimeText.parseISO8601(s) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "bad date")
            }
            return date
        }
        var records: [AuditRecord] = []
        var bad = 0
        for line in data.split(separator: 0x0A).suffix(max(0, limit)) {
            if let r = try? decoder.decode(AuditRecord.self, from: Data(line)) { records.append(r) } else { bad += 1 }
        }
        return (records, bad)
    }
}
