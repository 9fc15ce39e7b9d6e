import Foundation
import LastsetCore
import LastsetStore

extension Engine {
    /// The as-found history (rows of the database).
    public var asFound: AsFoundStore { AsFoundStore(database: database) }

    /// Reads each of a configured device's pages as found and archives a page's record only when it is the first or
    /// something changed (`AsFoundComparison`), with its audit record in the same commit; never writes to the device.
    /// The caller holds the device (no replay runs meanwhile: the writes Lastset made are all in the audit log).
    public func backUp(
        device: String, pages: [CompiledPage], from target: DeviceTarget, who: String, keep: Int,
        progress: ProgressHandler? = nil
    ) async -> AsFoundReport {
        var report = AsFoundReport(device: device, pages: [], requests: 0)
        let job = UUID().uuidString
        for (i, page) in pages.enumerated() {
            progress?(JobProgress(phase: .reading, done: i, total: pages.count))
            if Task.isCancelled {
                report.pages.append(AsFoundPageResult(pageId: page.id, outcome: .failed, error: "cancelled (shutdown)"))
                continue
            }
            switch await AsFoundReader.read(page: page, from: target) {
            case .failure(let error):
                report.pages.append(AsFoundPageResult(pageId: page.id, outcome: .failed, error: error.description))
            case .success(let reading):
                report.requests += reading.requests
                report.pages.append(
                    await archiveIfChanged(reading, of: page, device: device, target: target, who: who, job: job, keep: keep))
            }
        }
        progress?(JobProgress(phase: .reading, done: pages.count, total: pages.count))
        return report
    }

    /// Compares a page's reading with its last record and archives it when it is new or changed.
    private func archiveIfChanged(
        _ reading: AsFoundReader.Reading, of page: CompiledPage, device: String, target: DeviceTarget, who: String,
        job: String, keep: Int
    ) async -> AsFoundPageResult {
        let store = asFound
        do {
            let previous = try await store.latest(device: device, pageId: page.id)
            var verdict = AsFoundComparison.compare(
                previous: previous, identity: reading.identity, values: reading.values, pageHash: page.hash, writes: [])
            // Who made the changes is looked up only when there are some: an unchanged page costs no audit query.
            if let previous, case .changed = verdict {
                let writes = try await knownWrites(device: device, pageId: page.id, since: previous.takenAt)
                verdict = AsFoundComparison.compare(
                    previous: previous, identity: reading.identity, values: reading.values, pageHash: page.hash,
                    writes: writes)
            }
            var record = AsFoundRecord(
                device: device, pageId: page.id, number: 0, takenAt: reading.readAt, who: who, job: job, pageHash: page.hash,
                identity: reading.identity, values: reading.values)
            switch verdict {
            case .unchanged:
                return AsFoundPageResult(pageId: page.id, outcome: .unchanged, number: previous?.number)
            case .first:
                break
            case .changed(let changes, let machineChanged, let pageChanged):
                (record.changes, record.machineChanged, record.pageChanged) = (changes, machineChanged, pageChanged)
            }
            let base = auditBase(device: device, pageId: page.id, target: target, who: who, job: job, pageHash: page.hash)
            let stored = try await store.store(record, keep: keep) { stored in
                var audit = base
                audit.time = stored.takenAt
                audit.result = .archived
                audit.identity = stored.identity
                audit.message = AsFoundComparison.summary(stored)
                audit.registers = stored.changes.map(Self.auditRegister)
                return audit
            }
            return AsFoundPageResult(
                pageId: page.id, outcome: verdict == .first ? .first : .changed, number: stored.number,
                changes: stored.changes, summary: AsFoundComparison.summary(stored))
        } catch {
            return AsFoundPageResult(
                pageId: page.id, outcome: .failed, error: "cannot compare or keep the as-found record: \(error)")
        }
    }

    /// The writes Lastset made to a device's page since `time`, oldest first (its replays' audit records).
    private func knownWrites(device: String, pageId: String, since time: Date) async throws(StorageError) -> [KnownWrite] {
        let filter = AuditFilter(page: pageId, device: device, since: time, kinds: [.replay])
        let records = try await audit.read(limit: 10_000, matching: filter).records
        return records.sorted { $0.time < $1.time }.flatMap(KnownWrite.of)
    }

    /// An audit record of a backup of one page, without its outcome.
    public func auditBase(device: String, pageId: String, target: DeviceTarget, who: String, job: String, pageHash: String)
        -> AuditRecord
    {
        AuditRecord(
            time: Date(), kind: .backup, who: who, pageId: pageId, device: device, endpoint: target.endpoint.description,
            unit: target.unit, identity: [], templateVersion: nil, pageHash: pageHash, result: .failed, message: nil,
            registers: [], job: job)
    }

    /// A change as the audit record's register line: before, after, and who Lastset knows made it.
    static func auditRegister(_ change: AsFoundChange) -> AuditRegister {
        AuditRegister(
            registerId: change.registerId, before: change.before?.value, after: change.after?.value, status: .captured,
            message: change.by.map { "by job \($0.job) (\($0.who))" } ?? (change.kind == .changed ? "by nobody Lastset knows" : change.kind.rawValue))
    }
}
