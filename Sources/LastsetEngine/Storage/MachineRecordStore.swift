import Foundation
import LastsetCore
import LastsetStore

/// What the daemon knows of the machine behind each configured device (`MachineRecord`: the fingerprint it knows
/// it by, the finding still open), one row of `device_recognition` per device, kept in memory for the poller. A
/// record is saved before what it decides is done (a restore started after its record says so: never twice).
public actor MachineRecordStore {
    /// The database holding the records.
    public nonisolated let database: Database
    private var records: [String: MachineRecord] = [:]
    /// Rows that could not be read at open (left out: their devices start as never seen).
    public private(set) var unreadable: [String] = []

    /// Reads every device's record.
    public init(database: Database) throws(StorageError) {
        self.database = database
        var records: [String: MachineRecord] = [:]
        var unreadable: [String] = []
        do {
            try database.readNow { c in
                try c.rows("SELECT device, record FROM device_recognition") { row in
                    let device = row.text(0) ?? ""
                    if let text = row.text(1),
                        let record = try? APICoding.decoder().decode(MachineRecord.self, from: Data(text.utf8))
                    {
                        records[device] = record
                    } else {
                        unreadable.append(device)
                    }
                    return true
                }
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
        self.records = records
        self.unreadable = unreadable
    }

    /// The device's record (empty: never seen).
    public func record(device: String) -> MachineRecord { records[device] ?? MachineRecord() }

    /// Commits the device's record and keeps it.
    public func save(_ record: MachineRecord, device: String) async throws(StorageError) {
        let json: Data
        do {
            json = try APICoding.encoder().encode(record)
        } catch {
            throw StorageError.of(error, database.path)
        }
        let bytes = [UInt8](json)
        do {
            try await database.write { c in
                try c.run(
                    "INSERT INTO device_recognition (device, record) VALUES (?, ?) ON CONFLICT (device) DO UPDATE SET record = excluded.record",
                    .text(device), .utf8(bytes))
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
        records[device] = record
    }
}
