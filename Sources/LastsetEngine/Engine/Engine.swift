import Foundation
import LastsetCore
import LastsetFormats
import LastsetStore

/// The template engine: capture, archive, replay, each recorded in the audit log. Fails closed: a
/// replay writes no frame unless its intent is recorded, and a capture or import archives nothing unless its
/// audit record commits with it.
public struct Engine: Sendable {
    /// The data directory's database, `lastset.db` (template versions, the audit log, replay journals, device
    /// state).
    /// The data directory it keeps its records in.
    public let dataDirectory: URL
    public let database: Database
    public let archive: TemplateArchive
    public let audit: AuditLog
    /// Running replays' journals (rows of the database).
    public let journal: ReplayJournal
    /// Per device page: the template last applied, and whether an interrupted replay left it unverified.
    public let deviceState: DeviceStateStore
    /// Per configured device: the machine it is known by and the finding still open (issue 23, part 3).
    public let machines: MachineRecordStore
    /// The change requests of four-eyes change control (rows of the database).
    public let changeRequests: ChangeRequestStore
    /// What the first start on a data directory of the release before the database imported (nil when nothing
    /// was imported this time), for the log.
    public let importNote: String?

    /// Opens the database (importing the files of the release before it, the first time) and everything kept in
    /// it. `host`: this host's fleet name (nil without a fleet; see `TemplateArchive`).
    public init(dataDirectory: URL, historyLimit: Int = 20, host: String? = nil) throws {
        self.dataDirectory = dataDirectory
        database = try RecordStore.open(dataDirectory: dataDirectory)
        importNote = try LegacyImport.run(dataDirectory: dataDirectory, database: database, host: host)
        archive = try TemplateArchive(database: database, historyLimit: historyLimit, host: host)
        audit = AuditLog(database: database)
        journal = ReplayJournal(database: database)
        deviceState = try DeviceStateStore(database: database)
        machines = try MachineRecordStore(database: database)
        changeRequests = try ChangeRequestStore(database: database)
    }

    /// Closes the database (queued commits first; the WAL folded into the file). Returns the checkpoint's error
    /// when the WAL had to stay (it is replayed at the next open: nothing lost).
    @discardableResult
    public func close() -> StorageError? {
        database.close().map(StorageError.init)
    }

    /// Captures a page from a device; audits the attempt whatever its outcome. An archived capture is one
    /// commit: the version and its audit record together.
    public func capture(page: CompiledPage, from target: DeviceTarget, who: String, progress: ProgressHandler? = nil) async
        -> CaptureReport
    {
        let job = UUID().uuidString
        let base = AuditRecord(
            time: Date(), kind: .capture, who: who, pageId: page.id, device: target.label, endpoint: target.endpoint.description,
            unit: target.unit, identity: [], templateVersion: nil, pageHash: page.hash, result: .started, message: nil,
            registers: [], job: job)
        var (report, stored) = await Capture.run(
            page: page, from: target, archive: archive, who: who, progress: progress,
            record: { stored in
                var record = base
                record.time = Date()
                record.result = .archived
                record.templateVersion = stored.version
                record.templateVersionId = stored.versionId.id
                record.identity = stored.source.identity
                record.registers = stored.entries.map {
                    AuditRegister(registerId: $0.registerId, before: nil, after: $0.value, status: .captured)
                }
                return record
            })
        guard stored == nil else { return report }
        // Nothing archived: the outcome is recorded alone.
        var record = base
        record.time = Date()
        record.pageHash = report.pageHash
        record.templateVersion = report.version
        record.templateVersionId = report.versionId
        record.registers = report.problems.map {
            AuditRegister(registerId: $0.registerId, before: nil, after: $0.value, status: .invalid, message: $0.rule)
        }
        record.result = report.error != nil ? .failed : .invalid
        record.message = report.error
        if report.unchanged == true {
            record.result = .unchanged
            record.message = "unchanged, still version \(report.versionId ?? "?"): nothing archived"
        }
        do {
            try await audit.append(record)
        } catch {
            report.error = (report.error.map { $0 + "; " } ?? "") + "audit log: \(error)"
        }
        return report
    }

    /// Replays the page's latest template (or `version`) to a target; audits it.
    /// Throws only when the template cannot be loaded (missing, corrupt).
    public func apply(
        page: CompiledPage, version: TemplateVersionRef? = nil, to target: DeviceTarget, options: ReplayOptions, who: String,
        progress: ProgressHandler? = nil, signature: WriteSignature? = nil
    ) async throws(ArchiveError) -> ReplayReport {
        let template = try await archive.load(pageId: page.id, version: version)
        return await apply(
            page: page, template: template, to: target, options: options, who: who, progress: progress, signature: signature)
    }

    /// Replays an already loaded template to a target; audits it. Before the first write frame its intent (the
    /// audit intent record and the journal's intent) is one durable commit; if it fails, nothing is written. The
    /// outcome is one commit too: the outcome record (derived from the replay's ledger, like the report), what it
    /// sets in the device state, and the journal's removal. `signature`: the reason, meaning and approvals both
    /// records carry (docs/CHANGE-CONTROL.md).
    public func apply(
        page: CompiledPage, template: Template, to target: DeviceTarget, options: ReplayOptions, who: String,
        progress: ProgressHandler? = nil, signature: WriteSignature? = nil
    ) async -> ReplayReport {
        let job = UUID().uuidString
        let slot = JournalSlot()
        var (report, ledger) = await Replay.run(
            page: page, template: template, to: target, options: options, progress: progress,
            sink: replaySink(job: job, slot: slot, signature: signature), job: job, who: who, localHost: archive.host)
        var record = Self.outcomeRecord(
            report, ledger, page: page, template: template, target: target, options: options, who: who, job: job)
        signature?.sign(&record)
        // The id the records carry, so that the report names them (`lastset certificate` takes it).
        report.auditJob = record.job
        // What the outcome does to the page's recorded state, decided from the outcome record itself, as the
        // rebuild from the audit log decides it.
        let effect = ReplayOutcome(record: record).map(ReplayPageEffect.of) ?? .keep
        let state: DevicePageState?
        switch effect {
        case .applied:
            state = DeviceStateStore.applied(
                device: record.device, pageId: record.pageId,
                AppliedTemplate(
                    template: template, entries: ledger.appliedEntries, appliedAt: record.time, appliedBy: who, job: job))
        case .partiallyWritten: state = await deviceState.marked(UnverifiedMark.failedReplay(record))
        case .clearsMark: state = await deviceState.cleared(device: record.device, pageId: record.pageId)
        case .keep, .interrupted: state = nil
        }
        if let warning = await commitOutcome(record, state: state, job: job, journaled: slot.get() != nil) {
            report.warnings.append(warning)
        }
        return report
    }

    /// Where a replay's intent and events go: its intent (the audit intent record and the journal's intent) is one
    /// durable commit before the first write frame; its events go to the journal entry that commit opened.
    private func replaySink(job: String, slot: JournalSlot, signature: WriteSignature?) -> ReplaySink {
        let database = self.database
        let journal = self.journal
        return ReplaySink(
            begin: { intent in
                // Both rows made on this task; the writer only inserts them.
                var intentRecord = Self.intentRecord(intent, kind: .replay)
                signature?.sign(&intentRecord)
                let auditRow = AuditLog.Row(intentRecord)
                let journalRow = ReplayJournal.IntentRow(intent)
                do {
                    try await database.write { c in
                        try AuditLog.insert(auditRow, on: c)
                        try ReplayJournal.insert(journalRow, on: c)
                    }
                } catch {
                    throw StorageError.of(error, database.path)
                }
                slot.set(journal.entry(job: intent.job))
            },
            record: { event, beforeFrame in
                guard let entry = slot.get() else { return true }
                return entry.append(event, beforeFrame: beforeFrame)
            })
    }

    /// The outcome record of a replay, derived from its ledger like the report.
    private static func outcomeRecord(
        _ report: ReplayReport, _ ledger: ReplayLedger, page: CompiledPage, template: Template, target: DeviceTarget,
        options: ReplayOptions, who: String, job: String
    ) -> AuditRecord {
        let definitions = Dictionary(page.registers.map { ($0.registerId, $0.definition) }, uniquingKeysWith: { a, _ in a })
        // The report's lines are the audit's too (the same ledger): not derived and decoded twice.
        let registers = ledger.auditRegisters(dryRun: options.dryRun, report: (report.registers, report.rollback)) { id, words in
            definitions[id].map { RegisterCodec.decode(words, as: $0) } ?? .bytes(words.bigEndianBytes)
        }
        var record = AuditRecord(
            time: Date(), kind: options.dryRun ? .dryRun : .replay, who: who, pageId: page.id, device: target.label,
            endpoint: target.endpoint.description, unit: target.unit, identity: template.source.identity,
            templateVersion: template.version, pageHash: template.pageHash,
            result: AuditResult(report.status),
            message: Optional(
                [report.reason, report.stoppedAt.map { "stopped \($0)" }].compactMap { $0 }.joined(separator: "; ")
            )
            .flatMap { $0.isEmpty ? nil : $0 },
            registers: registers, job: ledger.intent != nil ? job : nil,
            rollback: report.rollback.map { $0.restored ? .restored : .incomplete },
            writeFrames: options.dryRun ? nil : report.writeFrames, templateVersionId: template.versionId.id,
            registersChanged: options.dryRun ? nil : ledger.touchedIndices.count)
        if !options.dryRun {
            // The steps as the report gives them (empty lists: the page has none, or none was reached).
            record.beforeWrite = report.beforeWrite.isEmpty ? nil : report.beforeWrite
            record.afterWrite = report.afterWrite.isEmpty ? nil : report.afterWrite
        }
        return record
    }

    /// The outcome, the state it sets and the journal's end: one commit. When it fails, the journal stays and the
    /// next start records the replay as interrupted; returns the report's warning saying so.
    private func commitOutcome(_ record: AuditRecord, state: DevicePageState?, job: String, journaled: Bool) async
        -> String?
    {
        let outcomeRow = AuditLog.Row(record)
        let stateRow = state.map(DeviceStateStore.Row.init)
        do {
            try await database.write { c in
                try AuditLog.insert(outcomeRow, on: c)
                if let stateRow { try DeviceStateStore.save(stateRow, on: c) }
                if journaled { try ReplayJournal.remove(job: job, on: c) }
            }
            if let state { await deviceState.remember(state) }
            return nil
        } catch {
            return "audit log: \(StorageError.of(error, database.path)) (the outcome and the device state are not recorded"
                + (journaled ? "; the next start records this replay as interrupted)" : ")")
        }
    }

    /// The intent record a replay appends to the audit log before its first write frame.
    static func intentRecord(_ intent: ReplayIntent, kind: AuditKind) -> AuditRecord {
        AuditRecord(
            time: intent.time, kind: kind, who: intent.who, pageId: intent.pageId, device: intent.device,
            endpoint: intent.endpoint, unit: intent.unit, identity: intent.identity, templateVersion: intent.templateVersion,
            pageHash: intent.pageHash, result: .started,
            message: "writing \(intent.registers.count) registers (onError \(intent.onError.rawValue))",
            registers: intent.registers.map {
                AuditRegister(
                    registerId: $0.registerId, before: $0.before, after: nil, status: .replay(.notAttempted), written: $0.expected
                )
            }, job: intent.job)
    }

    /// At start: every replay journal left without an end (the daemon was killed or crashed while writing)
    /// becomes an "interrupted: may be partially written" audit record, and its device page is marked unverified —
    /// the record, the mark and the journal's removal in one commit. Never resumed. Returns the records written.
    public func recoverInterrupted() async -> [AuditRecord] {
        let leftovers: [ReplayJournal.Leftover]
        do {
            leftovers = try await journal.leftovers()
        } catch {
            return []  // kept for the next start
        }
        var out: [AuditRecord] = []
        for left in leftovers {
            guard let intent = left.ledger.intent else { continue }  // an unreadable intent is kept, never guessed at
            let logged: AuditRecord?
            do {
                logged = try await audit.outcome(ofJob: intent.job)
            } catch {
                continue  // kept for the next start: whether it ended is unknown now
            }
            if let done = logged {
                // It finished and was audited, but its journal stayed: only a journal of the release before the
                // database can (there the outcome record and the journal's removal were two steps). What its outcome
                // sets in the device state is recorded if that was lost with it — a success's values written are the
                // intent's — with the journal's removal.
                let effect = ReplayOutcome(record: done).map(ReplayPageEffect.of) ?? .keep
                let current = await deviceState.state(device: intent.device, pageId: intent.pageId)
                // A state a later job recorded is left as it is.
                let later = [current?.applied?.appliedAt, current?.unverified?.since].contains {
                    ($0 ?? .distantPast) > done.time
                }
                var state: DevicePageState?
                if effect == .partiallyWritten, current?.unverified?.job != intent.job, !later {
                    state = await deviceState.marked(UnverifiedMark.failedReplay(done))
                }
                if effect == .applied, current?.applied?.job != intent.job {
                    state = DeviceStateStore.applied(
                        device: intent.device, pageId: intent.pageId,
                        AppliedTemplate(
                            version: intent.templateVersion, versionId: done.templateVersionId, pageHash: intent.pageHash,
                            appliedAt: done.time, appliedBy: done.who, job: intent.job,
                            entries: intent.registers.map {
                                RecordedValue(
                                    registerId: $0.registerId, address: $0.address, valueData: $0.expectedData,
                                    value: $0.expected)
                            }))
                }
                _ = await commitRecovery(job: intent.job, record: nil, state: state)
                continue
            }
            let record = Self.interruptedRecord(intent, ledger: left.ledger, unreadable: left.unreadable)
            let state = await deviceState.marked(
                UnverifiedMark(
                    device: intent.device, pageId: intent.pageId, since: intent.time, job: intent.job,
                    message: record.message ?? "interrupted"))
            if await commitRecovery(job: intent.job, record: record, state: state) { out.append(record) }
        }
        return out
    }

    /// Commits a recovered journal's record and state with its removal; false when it could not (the journal is
    /// kept for the next start).
    private func commitRecovery(job: String, record: AuditRecord?, state: DevicePageState?) async -> Bool {
        let recordRow = record.map(AuditLog.Row.init)
        let stateRow = state.map(DeviceStateStore.Row.init)
        do {
            try await database.write { c in
                if let recordRow { try AuditLog.insert(recordRow, on: c) }
                if let stateRow { try DeviceStateStore.save(stateRow, on: c) }
                try ReplayJournal.remove(job: job, on: c)
            }
        } catch {
            return false
        }
        if let state { await deviceState.remember(state) }
        return true
    }

    /// The "interrupted" record of a replay whose journal ends without an outcome: what its transitions tell of the
    /// frames sent, the steps first (an unlock sent without its commit leaves the machine in another mode).
    static func interruptedRecord(_ intent: ReplayIntent, ledger: ReplayLedger, unreadable: Int) -> AuditRecord {
        // Values are decoded from the intent (the page may have changed since); looked up by id, not scanned per
        // register (a 10,000-register intent would cost 50 million comparisons at start).
        let expected = Dictionary(
            intent.registers.map { ($0.registerId, $0.expected) }, uniquingKeysWith: { first, _ in first })
        let registers = ledger.auditRegisters { _, words in .bytes(words.bigEndianBytes) }.map { reg -> AuditRegister in
            var r = reg
            if r.written != nil, let value = expected[reg.registerId] { r.written = value }
            return r
        }
        let sent = registers.filter { $0.written != nil }.count
        var message = "interrupted: may be partially written ("
        if let steps = ledger.stepsText { message += steps + "; " }
        message +=
            "\(ledger.writeFrames - ledger.stepFrames) register write frames answered, \(sent) of \(registers.count) registers sent"
        if let last = ledger.lastConfirmed { message += "; last confirmed \(last)" }
        if let doubt = ledger.firstInDoubt { message += "; first in doubt \(doubt)" }
        if unreadable > 0 {
            message +=
                "; \(unreadable) journal event\(unreadable == 1 ? "" : "s") unreadable: every register may have been written"
        }
        message += "); not resumed: replay or diff the device to clear"
        var record = AuditRecord(
            time: Date(), kind: .replay, who: intent.who, pageId: intent.pageId, device: intent.device,
            endpoint: intent.endpoint, unit: intent.unit, identity: intent.identity, templateVersion: intent.templateVersion,
            pageHash: intent.pageHash, result: .interrupted, message: message, registers: registers, job: intent.job,
            writeFrames: ledger.writeFrames)
        record.beforeWrite = ledger.stepResults(.beforeWrite)
        record.afterWrite = ledger.stepResults(.afterWrite)
        return record
    }

    /// Archives a template file brought from another site as the page's next version; the file must be
    /// a valid template of this page (checked before anything is written). Audited: nothing is
    /// archived unless the intent record could be written first.
    public func importTemplate(_ data: Data, into page: CompiledPage, who: String) async throws(ArchiveError) -> Template {
        let template: Template
        do {
            template = try TemplateFile.decode(data)
        } catch {
            throw .invalidImport(error.reason)
        }
        guard template.pageId == page.id else {
            throw .wrongPage(expected: page.id, found: template.pageId)
        }
        // The one admission decision (as replay, capture and fleet adoption make it): an entry whose register
        // moved, changed layout, breaks the page's rules or whose value disagrees with its valueData is refused.
        // An import makes the file this host's version: judged as its own (`localHost: nil`).
        let admission = TemplateAdmission.admit(template, to: page, localHost: nil)
        guard admission.isAdmissible else { throw .notAdmissible(pageId: page.id, admission.refusals) }
        let leftOut = admission.leftOut.map(\.registerId)
        let record = AuditRecord(
            time: Date(), kind: .import, who: who, pageId: page.id, device: template.source.deviceId ?? template.source.endpoint,
            endpoint: template.source.endpoint, unit: template.source.unit, identity: template.source.identity,
            templateVersion: nil, pageHash: template.pageHash, result: .started,
            message: "importing (captured \(TimeText.iso8601(template.capturedAt)) as version \(template.version))",
            registers: template.entries.map {
                AuditRegister(registerId: $0.registerId, before: nil, after: $0.value, status: .imported)
            }, job: UUID().uuidString)
        let samePage = template.pageHash == page.hash
        do {
            // The version and its record: one commit.
            return try await archive.store(template) { stored in
                var archived = record
                archived.time = Date()
                archived.templateVersion = stored.version
                archived.templateVersionId = stored.versionId.id
                archived.result = .archived
                archived.message =
                    "imported (captured \(TimeText.iso8601(template.capturedAt)) as version \(template.version))"
                    + (samePage ? "" : "; captured against another page definition")
                    + (leftOut.isEmpty
                        ? "" : "; left out when replayed here (not registers of this page): \(leftOut.joined(separator: ", "))")
                return archived
            }
        } catch {
            // Nothing archived and nothing recorded: the failure is recorded alone.
            var failed = record
            failed.time = Date()
            failed.result = .failed
            failed.registers = []
            failed.message =
                "not imported (captured \(TimeText.iso8601(template.capturedAt)) as version \(template.version)): \(error)"
            throw await recordFailedImport(failed, error)
        }
    }
}

extension Engine {
    /// Appends the `failed` outcome of an import that archived nothing, and returns the error to answer with:
    /// `error` itself, or `.failureUnaudited` when that record could not be written either (the log then holds
    /// no record of the attempt, and the answer says so).
    func recordFailedImport(_ record: AuditRecord, _ error: ArchiveError) async -> ArchiveError {
        do {
            try await audit.append(record)
            return error
        } catch let auditError {
            return .failureUnaudited(error, auditError)
        }
    }
}

/// The replay's journal, set once its intent is committed.
final class JournalSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var entry: ReplayJournal.Entry?
    func set(_ e: ReplayJournal.Entry) { lock.withLock { entry = e } }
    func get() -> ReplayJournal.Entry? { lock.withLock { entry } }
}
