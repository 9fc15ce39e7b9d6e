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
        w.key("device"); w.string(r.device)
        w.key("endpoint"); w.string(r.endpoint)
        w.key("identity")
        w.beginArray()
        for i in r.identity {
            w.beginObject()
            w.key("address"); w.int(i.address)
            w.key("registerId"); w.string(i.registerId)
            w.key("value"); w.value(i.value)
            w.key("valueData"); w.string(i.valueData)
            w.endObject()
        }
        w.endArray()
        w.key("kind"); w.string(r.kind)
        if let m = r.message { w.key("message"); w.string(m) }
        w.key("pageHash"); w.string(r.pageHash)
        w.key("pageId"); w.string(r.pageId)
        w.key("registers")
        w.beginArray()
        for reg in r.registers {
            w.beginObject()
            if let a = reg.after { w.key("after"); w.value(a) }
            if let b = reg.before { w.key("before"); w.value(b) }
            w.key("registerId"); w.string(reg.registerId)
            w.key("status"); w.string(reg.status)
            w.endObject()
        }
        w.endArray()
        w.key("result"); w.string(r.result)
        if let v = r.templateVersion { w.key("templateVersion"); w.int(v) }
        w.key("time"); w.date(r.time)
        w.key("unit"); w.int(r.unit)
        w.key("who"); w.string(r.who)
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
