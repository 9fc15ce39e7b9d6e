import Foundation
import LastsetCore

/// "Use last settings": writes a template's valid values to a target in page order, verifies them by
/// reading back, and reports register by register. Nothing is written before every check has passed.
///
/// The replay is a state machine (checks → identity → snapshot → intent → beforeWrite → windows →
/// final pass → afterWrite | rollback → end) whose every transition is a `ReplayEvent`, journaled
/// through the `ReplaySink` and folded into a `ReplayLedger`; the report is derived from the ledger.
/// Its decisions are pure functions of LastsetCore — what it sends (`ReplayPlan`), when a register is read
/// back (`ReadBackReadiness`), what follows a window (`AfterWindow`, `WriteRefusal`), how it ends
/// (`RecoveryPolicy`) — and its parts live in the files beside this one: the checks before any write
/// (Replay+Checks), the steps (Replay+Steps), the windows (Replay+Windows, Replay+SendWindow), the final
/// pass (Replay+FinalPass) and the rollback (Replay+Rollback).
public struct Replay {
    let page: CompiledPage
    let template: Template
    let target: DeviceTarget
    let options: ReplayOptions
    let progress: ProgressHandler?
    let sink: ReplaySink?
    let job: String
    let who: String
    /// This host's fleet name: another host's version is written only under the definition it was captured against.
    let localHost: String?

    var report: ReplayReport
    var ledger = ReplayLedger()
    /// A template entry re-checked against the current page.
    struct Entry {
        var entry: TemplateEntry
        /// Its register's position in the page (`page.registers`).
        var register: Int
        /// The words to write (the entry's, decoded once when it was made).
        var words: [UInt16]
        var span: AddressSpan { AddressSpan(address: entry.address, length: entry.length) }
    }
    /// Template entries re-checked against the current page, in page order; `entries[i]` is the
    /// ledger's `fates[i]` and the plan's `entries[i]`.
    var entries: [Entry] = []
    /// `entries[i].register`, for loops that need only that (an `Entry` is copied whole when read).
    var entryPositions: [Int] = []
    var plan: ReplayPlan?
    var readFrames = 0
    /// The reads' latest words (a register is checked from here once its reads were sent after its write).
    var latest = PageReadout()
    var journalBroken = false
    /// The rollback ran because `afterWrite` failed after every register verified (the reason says so).
    var rolledBackAfterAfterWrite = false
    /// Shorter write limits tried after refused merged writes, learned only when proven.
    var writeEvidence = WriteLimitEvidence()

    /// Runs a replay and returns its report and ledger (never throws: every failure is in the report). `localHost`:
    /// this host's fleet name (`TemplateAdmission`; nil: the template is judged as this host's own).
    public static func run(
        page: CompiledPage, template: Template, to target: DeviceTarget, options: ReplayOptions = ReplayOptions(),
        progress: ProgressHandler? = nil, sink: ReplaySink? = nil, job: String = UUID().uuidString, who: String = "",
        localHost: String? = nil
    ) async -> (report: ReplayReport, ledger: ReplayLedger) {
        var replay = Replay(
            page: page, template: template, target: target, options: options, progress: progress, sink: sink, job: job,
            who: who, localHost: localHost)
        await replay.execute()
        replay.finish()
        return (replay.report, replay.ledger)
    }

    private init(
        page: CompiledPage, template: Template, target: DeviceTarget, options: ReplayOptions, progress: ProgressHandler?,
        sink: ReplaySink?, job: String, who: String, localHost: String?
    ) {
        self.localHost = localHost
        self.page = page
        self.template = template
        self.target = target
        self.options = options
        self.progress = progress
        self.sink = sink
        self.job = job
        self.who = who
        report = ReplayReport(
            pageId: page.id, templateVersion: template.version, pageHash: template.pageHash, target: target.label,
            endpoint: target.endpoint.description, unit: target.unit, options: options, status: .failed, reason: nil,
            stoppedAt: nil, warnings: [], identity: [], beforeWrite: [], afterWrite: [], registers: [], plan: [],
            fellBackToFC06: false, rollback: nil, requests: 0, writeFrames: 0)
        report.templateVersionId = template.versionId.id
    }

    /// The recovery policy of the replay's `onError`.
    var policy: RecoveryPolicy { RecoveryPolicy(options.onError) }

    /// Records a transition in the ledger and the journal.
    @discardableResult
    mutating func record(_ event: ReplayEvent, journaled: Bool = false) -> Bool {
        ledger.record(event)
        guard !journaled else { return true }
        return journal(event)
    }

    /// True when the replay journals (a sink, and the intent recorded).
    var journaling: Bool { sink != nil && ledger.intent != nil }

    /// Journals a transition the ledger has recorded already (its read-backs, recorded from words).
    @discardableResult
    mutating func journal(_ event: ReplayEvent) -> Bool {
        guard let sink, ledger.intent != nil else { return true }
        let ok = sink.record(event, false)
        if !ok { journalBroken = true }
        return ok
    }

    private mutating func execute() async {
        guard target.unit != 0 else {
            // Unit 0 is broadcast: every device on the line would take the writes, and none answers a read.
            report.status = .refused
            report.reason =
                "unit 0 is the broadcast address: a replay there would write to every device on the line and could not be verified"
            return
        }
        guard checkTemplate() else { return }
        guard await checkIdentity() else { return }
        // Always read what the target holds now: the dry-run diff, the rollback snapshot, and the
        // "before" of every register in the report and the audit log.
        guard await takeSnapshot() else { return }
        planRequests()
        if options.hashesChange || options.changeHash != nil {
            guard checkChangeHash() else { return }
        }
        if options.dryRun {
            report.status = .planned
            return
        }
        if Task.isCancelled {
            report.stoppedAt = "shutdown before the first write"
            report.reason = "stopped by shutdown at a clean point: nothing written"
            return
        }
        guard await recordIntent() else { return }
        guard await runSteps(page.beforeWrite, phase: .beforeWrite) else {
            report.afterWrite = page.afterWrite.map {
                StepResult(address: $0.address, value: $0.value, status: .notAttempted)
            }
            return
        }
        let cancelled = await writeWindows()
        // A shorter write limit is learned for the device only when the refused write's registers were all
        // acknowledged in the shorter writes: a value rejection never lowers it.
        if let limit = writeEvidence.learned(acknowledgedWhole: { ledger.acknowledgedWhole(at: $0) }) {
            LearnedLimits.shared.learn(target, maxWrite: limit)
        }
        if !cancelled { await finalPass() }
        await conclude()
    }

    /// Plans every request up front (`ReplayPlan`), with the limits learned for the device.
    private mutating func planRequests() {
        let planned = entries.map { PlannedWrite(registerId: $0.entry.registerId, address: $0.entry.address, words: $0.words) }
        let learned = LearnedLimits.shared.effective(target)
        // Ids unique: the template check refused repeats.
        var plan = ReplayPlan(entries: planned, limits: target.limits, readLimits: learned, uniqueIds: true)
        if learned.maxWriteRegisters < target.limits.maxWriteRegisters { plan.replan(from: 0, limits: learned) }
        self.plan = plan
    }

    /// Makes the intent durable before the first write frame; false (the replay refused, nothing written)
    /// when it cannot be.
    private mutating func recordIntent() async -> Bool {
        guard let sink else { return true }
        let intent = ReplayIntent(
            job: job, time: Date(), who: who, pageId: page.id, deviceId: target.deviceId, device: target.label,
            endpoint: target.endpoint.description, unit: target.unit, templateVersion: template.version,
            pageHash: template.pageHash, identity: template.source.identity, onError: options.onError,
            registers: ledger.intentRegisters, beforeWrite: page.beforeWrite, afterWrite: page.afterWrite)
        do {
            try await sink.begin(intent)
        } catch {
            report.status = .refused
            report.reason = "cannot record the replay before writing, nothing written: \(error)"
            return false
        }
        record(ReplayEvent(.intent, intent: intent), journaled: true)
        return true
    }

    /// After the writes and the final pass: the commit (`afterWrite`), a rollback or nothing, as the recovery
    /// policy says.
    private mutating func conclude() async {
        let lines = ledger.statuses()
        let ending = policy.afterWrites(
            everyRegisterVerified: lines.allSatisfy { $0 == .verified }, journalIntact: !journalBroken)
        guard ending != .commit else {
            if await runSteps(page.afterWrite, phase: .afterWrite) {
                report.status = .succeeded
            } else if policy.afterFailedCommit == .rollBack {
                // Every register verified, the commit failed: the new values are live, uncommitted. The
                // rollback promise covers this too — the target gets back what it held before.
                if report.afterWrite.contains(where: { $0.status == .inDoubt }) {
                    report.warnings.append(
                        "afterWrite got no answer: the device may have executed it (committed the new values) before the rollback restored the registers"
                    )
                }
                rolledBackAfterAfterWrite = true
                await rollBack()
            }
            return
        }
        let changed = ledger.changedLater(lines)
        report.afterWrite = page.afterWrite.map {
            StepResult(
                address: $0.address, value: $0.value, status: .notAttempted,
                message: changed.isEmpty
                    ? "not every register verified" : "changed after verification: \(changed.joined(separator: ", "))")
        }
        let bad = lines.filter { $0 != .verified }.count
        report.reason = report.reason ?? "\(bad) of \(lines.count) registers not verified"
        if !changed.isEmpty {
            report.reason! += "; changed by a later write (final pass): \(changed.joined(separator: ", "))"
        }
        if ending == .rollBack { await rollBack() }
    }

    /// Derives the report from the ledger.
    private mutating func finish() {
        let dry = options.dryRun
        if report.status == .refused && ledger.intent == nil { ledger.register([]) }
        let layouts = page.layouts
        let unsets = page.unsets
        // Fate i is entry i: its register's page position, read from the entry (no lookup by id).
        let positions =
            ledger.count == entryPositions.count
            ? entryPositions : (0..<ledger.count).map { page.position(of: ledger.registerId(at: $0))! }
        // Values decoded from the ledger's hex in place (no word arrays), by the register's layout.
        report.registers = ledger.results(
            dryRun: dry, decodeWords: { RegisterCodec.decode($1, layout: layouts[positions[$0]]) },
            beforeUnset: { unsets[positions[$0]].matches($1) })
        // Every ledger register is an entry, and every entry a register of the page (checkTemplate).
        let compiled = page
        report.rollback = ledger.rollbackResults(
            decode: { id, words in RegisterCodec.decode(words, as: compiled.registers[compiled.position(of: id)!].definition) },
            unset: { id, words in unsets[compiled.position(of: id)!].matches(words) })
        if rolledBackAfterAfterWrite, let rollback = report.rollback {
            report.reason =
                (report.reason.map { $0 + "; " } ?? "")
                + (rollback.restored
                    ? "rolled back (onError rollback): every register restored to its value before the replay and verified"
                    : "rolled back (onError rollback), NOT restored: see the rollback")
        }
        report.plan = (plan?.writes ?? []).map(PlannedRequest.init)
        report.writeFrames = ledger.writeFrames
        report.requests = readFrames + ledger.writeFrames
        report.lastConfirmed = ledger.lastConfirmed
        // The report lines carry the statuses already (the same function, when not a dry run).
        let statuses = dry ? ledger.statuses() : report.registers.map(\.status)
        report.firstInDoubt = ledger.firstInDoubt(statuses)
        report.changedLater = ledger.changedLater(statuses)
        if let doubt = report.firstInDoubt {
            report.stoppedAt =
                "\(report.stoppedAt.map { $0 + "; " } ?? "")last confirmed \(report.lastConfirmed ?? "none"), first in doubt \(doubt)"
        }
        if journalBroken { report.warnings.append("the journal could not be written to the end; writes stopped") }
        record(ReplayEvent(.end, message: report.reason, status: report.status))
    }

}
