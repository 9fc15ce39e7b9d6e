import Foundation
import LastsetCore
import ModbusLink

/// The append-only audit log: `<data>/audit.jsonl`, one JSON record per line, fsynced per record.
public actor AuditLog {
    public let url: URL
    private let executor = DispatchQueueExecutor(label: "lastset.audit")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens (creating the directory) the log under the data directory.
    public init(dataDirectory: URL) throws(StorageError) {
        try DurableFile.makeDirectory(dataDirectory)
        url = dataDirectory.appendingPathComponent("audit.jsonl")
    }

    private static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(TimeText.iso8601(date))
        }
        return e
    }

    /// Appends one record durably.
    public func append(_ record: AuditRecord) throws(StorageError) {
        var line = (try? Self.encoder().encode(record)) ?? Data("{}".utf8)
        line.append(0x0A)
        try DurableFile.append(line, to: url)
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
