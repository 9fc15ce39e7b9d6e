import Foundation
import LastsetCore
import ModbusLink

/// Where a replay journals its transitions: `begin` makes the intent durable (audit intent record and
/// the journal's intent, one commit) before the first write frame and throws when it cannot — then nothing is
/// written; `record` journals one transition and returns false when it (or one before it) could not be journaled.
public struct ReplaySink: Sendable {
    /// Makes the intent durable; throws when it cannot (the replay is then refused).
    public var begin: @Sendable (ReplayIntent) async throws -> Void
    /// Journals one transition; false when it could not. The flag says it must be recorded before a frame goes
    /// out: the call then returns once it is (it may block: made on a device connection's queue, inside its batch);
    /// other transitions may be queued.
    public var record: @Sendable (ReplayEvent, _ beforeFrame: Bool) -> Bool

    /// A sink from its two functions.
    public init(
        begin: @escaping @Sendable (ReplayIntent) async throws -> Void,
        record: @escaping @Sendable (ReplayEvent, _ beforeFrame: Bool) -> Bool
    ) {
        self.begin = begin
        self.record = record
    }
}

/// "Use last settings": writes a template's valid values to a target in page order, verifies them by
/// reading back, and reports register by register. Nothing is written before every check has passed.
///
/// The replay is a state machine (checks → identity → snapshot → intent → beforeWrite → windows →
/// final pass → afterWrite | rollback → end) whose every transition is a `ReplayEvent`, journaled
/// through the `ReplaySink` and folded into a `ReplayLedger`; the report is derived from the ledger.
public struct Replay {
    let page: CompiledPage
    let template: Template
    let target: DeviceTarget
    let options: ReplayOptions
    let progress: ProgressHandler?
    let sink: ReplaySink?
    let job: String
    let who: String

    private var report: ReplayReport
    private var ledger = ReplayLedger()
    /// A template entry re-checked against the current page.
    private struct Entry {
        var entry: TemplateEntry
        /// Its register's position in the page (`page.registers`).
        var register: Int
        /// The words to write (the entry's, decoded once when it was made).
        var words: [UInt16]
        var span: AddressSpan { AddressSpan(address: entry.address, length: entry.length) }
    }
    /// Template entries re-checked against the current page, in page order; `entries[i]` is the
    /// ledger's `fates[i]` and the plan's `entries[i]`.
    private var entries: [Entry] = []
    /// `entries[i].register`, for loops that need only that (an `Entry` is copied whole when read).
    private var entryPositions: [Int] = []
    private var plan: ReplayPlan?
    private var readFrames = 0
    /// The reads' latest words (a register is checked from here once its reads were sent after its write).
    private var latest = PageReadout()
    private var journalBroken = false
    /// The rollback ran because `afterWrite` failed after every register verified (the reason says so).
    private var rolledBackAfterAfterWrite = false
    /// Shorter write limits tried after refused merged writes, learned only when proven.
    private var writeEvidence = WriteLimitEvidence()

    /// Runs a replay and returns its report and ledger (never throws: every failure is in the report).
    public static func run(
        page: CompiledPage, template: Template, to target: DeviceTarget, options: ReplayOptions = ReplayOptions(),
        progress: ProgressHandler? = nil, sink: ReplaySink? = nil, job: String = UUID().uuidString, who: String = ""
    ) async -> (report: ReplayReport, ledger: ReplayLedger) {
        var replay = Replay(
            page: page, template: template, target: target, options: options, progress: progress, sink: sink, job: job,
            who: who)
        await replay.execute()
        replay.finish()
        return (replay.report, replay.ledger)
    }

    private init(
        page: CompiledPage, template: Template, target: DeviceTarget, options: ReplayOptions, progress: ProgressHandler?,
        sink: ReplaySink?, job: String, who: String
    ) {
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

    /// Records a transition in the ledger and the journal.
    @discardableResult
    private mutating func record(_ event: ReplayEvent, journaled: Bool = false) -> Bool {
        ledger.record(event)
        guard !journaled else { return true }
        return journal(event)
    }

    /// True when the replay journals (a sink, and the intent recorded).
    private var journaling: Bool { sink != nil && ledger.intent != nil }

    /// Journals a transition the ledger has recorded already (its read-backs, recorded from words).
    @discardableResult
    private mutating func journal(_ event: ReplayEvent) -> Bool {
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
        let planned = entries.map { PlannedWrite(registerId: $0.entry.registerId, address: $0.entry.address, words: $0.words) }
        // Ids unique: the template check refused repeats.
        var plan = ReplayPlan(
            entries: planned, limits: target.limits, readLimits: LearnedLimits.shared.effective(target), uniqueIds: true)
        if LearnedLimits.shared.effective(target).maxWriteRegisters < target.limits.maxWriteRegisters {
            plan.replan(from: 0, limits: LearnedLimits.shared.effective(target))
        }
        self.plan = plan
        if options.dryRun {
            report.status = .planned
            return
        }
        if Task.isCancelled {
            report.stoppedAt = "shutdown before the first write"
            report.reason = "stopped by shutdown at a clean point: nothing written"
            return
        }
        // The intent, durable before the first write frame; without it nothing is written.
        if let sink {
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
                return
            }
            record(ReplayEvent(.intent, intent: intent), journaled: true)
        }
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
        let lines = ledger.statuses()
        if lines.allSatisfy({ $0 == .verified }) && !journalBroken {
            if await runSteps(page.afterWrite, phase: .afterWrite) {
                report.status = .succeeded
            } else if options.onError == .rollback {
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
        } else {
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
            if options.onError == .rollback { await rollBack() }
        }
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

    // MARK: checks before any write

    /// Every entry must still fit the page: the one admission decision (`TemplateAdmission`: on the page, same
    /// address, length and layout as at capture, writable, cloned, set, valid, `value` the decoding of its
    /// `valueData`). Any refused entry refuses the replay before the first frame; an entry whose register is no
    /// longer on the page is left out, named in a warning.
    private mutating func checkTemplate() -> Bool {
        let admission = TemplateAdmission.admit(template, to: page)
        if template.pageHash != page.hash && admission.isAdmissible {
            report.warnings.append(
                "page definition changed since capture (template \(template.pageHash), page now \(page.hash)); entries re-checked"
            )
        }
        let leftOut = admission.leftOut
        if !leftOut.isEmpty {
            report.warnings.append(
                "left out, not written (no longer registers of page \"\(page.id)\"): "
                    + leftOut.map(\.registerId).joined(separator: ", "))
        }
        guard admission.isAdmissible else {
            report.status = .refused
            report.reason = "template not valid for the page, nothing written: " + admission.refusalText
            entries = []
            entryPositions = []
            ledger.register([])
            return false
        }
        entries.reserveCapacity(template.entries.count)
        // What the replay expects (and reports, audits): the words it sends, decoded with the current page.
        var decoded: [RegisterValue] = []
        decoded.reserveCapacity(template.entries.count)
        for (entry, verdict) in zip(template.entries, admission.verdicts) {
            guard case .admitted(let at, let value) = verdict else { continue }
            entries.append(Entry(entry: entry, register: at, words: entry.words))
            entryPositions.append(at)
            decoded.append(value)
        }
        if !zip(entryPositions, entryPositions.dropFirst()).allSatisfy({ $0 < $1 }) {
            let order = entries.indices.sorted { entries[$0].register < entries[$1].register }
            entries = order.map { entries[$0] }
            decoded = order.map { decoded[$0] }
            entryPositions = entries.map(\.register)
        }
        // The ledger's columns straight from the entries (ids unique: repeats were refused above).
        var ids: [String] = []
        var addresses: [Int] = []
        var lengths: [Int] = []
        var expected: [RegisterValue] = []
        var texts: [String] = []
        var words: [UInt16] = []
        var starts: [Int] = []
        ids.reserveCapacity(entries.count)
        addresses.reserveCapacity(entries.count)
        lengths.reserveCapacity(entries.count)
        expected.reserveCapacity(entries.count)
        texts.reserveCapacity(entries.count)
        starts.reserveCapacity(entries.count)
        entries.withUnsafeBufferPointer { es in
            for e in es.indices {
                ids.append(es[e].entry.registerId)
                addresses.append(es[e].entry.address)
                lengths.append(es[e].entry.length)
                expected.append(decoded[e])
                // The words' hex: the entry's own when already so (a capture writes it upper case).
                let data = es[e].entry.valueData
                texts.append(ValueHex.isUpperCase(data) ? data : es[e].words.hexString)
                starts.append(words.count)
                words.append(contentsOf: es[e].words)
            }
        }
        ledger.register(
            uniqueIds: ids, addresses: addresses, lengths: lengths, expected: expected, expectedData: texts,
            expectedWords: words, wordStarts: starts)
        return true
    }

    /// The target's identity registers must hold what the template's source held.
    private mutating func checkIdentity() async -> Bool {
        let identity = page.identity
        guard !identity.isEmpty || !page.identityObjects.isEmpty else { return true }
        progress?(JobProgress(phase: .checkingIdentity, done: 0, total: identity.count + page.identityObjects.count))
        let readout = await PageReader.read(
            identity.map { AddressSpan(address: $0.address, length: $0.type.registerCount) }, from: target)
        readFrames += readout.requests
        var ok = true
        for reg in identity {
            let span = AddressSpan(address: reg.address, length: reg.type.registerCount)
            let recorded = template.source.identity.first { $0.registerId == reg.registerId }
            var check = IdentityCheck(
                registerId: reg.registerId, expected: recorded?.value, actual: nil, matches: false, message: nil)
            if let words = readout.words(for: span) {
                check.actual = RegisterCodec.decode(words, as: reg.definition)
                if let recorded {
                    check.matches = recorded.isHeld(by: words)
                    if !check.matches { check.message = "expected \(recorded.value), target has \(check.actual!)" }
                } else {
                    check.message = "the template recorded no value for it"
                }
            } else {
                check.message = "cannot read: \(readout.failure(for: span).map(String.init(describing:)) ?? "no data")"
            }
            ok = ok && check.matches
            report.identity.append(check)
        }
        if !page.identityObjects.isEmpty {
            ok = await checkIdentityObjects() && ok
        }
        if !ok {
            report.status = .refused
            let bad = report.identity.filter { !$0.matches }.map { "\($0.registerId): \($0.message ?? "")" }
            report.reason = "identity mismatch, nothing written: " + bad.joined(separator: "; ")
        }
        return ok
    }

    /// The target's identification objects (FC43/14) must hold what the template's source held, or match the
    /// page's pattern (`IdentityObject.check`). Returns whether all of them do.
    private mutating func checkIdentityObjects() async -> Bool {
        let objects = page.identityObjects
        let (read, requests) = await IdentificationReader.read(objects, from: target)
        readFrames += requests
        var ok = true
        for object in objects {
            let recorded = template.source.identity.first { $0.registerId == object.recordedId }
            var check: IdentityCheck
            switch read {
            case .success(let identification):
                check = object.check(recorded: recorded, actual: identification.object(object.object))
            case .failure(let error):
                check = IdentityCheck(registerId: object.recordedId, expected: recorded?.value, matches: false)
                check.message = "cannot read: \(error)"
            }
            ok = ok && check.matches
            report.identity.append(check)
        }
        return ok
    }

    /// Reads the target's current values of every entry (dry-run diff, rollback snapshot, "before" values).
    /// Only a rollback needs every value: without one an unreadable register just has no "before".
    private mutating func takeSnapshot() async -> Bool {
        progress?(JobProgress(phase: .readingCurrentValues, done: 0, total: entries.count))
        let readout = await PageReader.read(entries.map(\.span), from: target)
        readFrames += readout.requests
        // The target's words and value, straight from the readout into the ledger (register i is entry i).
        let layouts = page.layouts
        for i in 0..<ledger.count {
            let span = ledger.span(at: i)
            let layout = layouts[entryPositions[i]]
            let done = readout.withWords(for: span) { words in
                ledger.recordBefore(at: i, value: RegisterCodec.decode(words, layout: layout), words: words)
            }
            if done == nil { ledger.recordBefore(at: i, value: nil, words: nil) }
        }
        if options.onError == .rollback && !options.dryRun, entries.contains(where: { !readout.has($0.span) }) {
            report.status = .refused
            report.reason =
                "cannot snapshot the target for rollback, nothing written: "
                + entries.filter { !readout.has($0.span) }.map {
                    "\($0.entry.registerId): \(readout.failure(for: $0.span).map(String.init(describing:)) ?? "no data")"
                }
                .joined(separator: "; ")
            return false
        }
        return true
    }

    // MARK: writing

    /// Sends `steps` (FC06 each), each journaled before its frame and its answer journaled as soon as it
    /// comes — before the read-back — so a replay killed after an unlock was answered says so.
    private mutating func runSteps(_ steps: [WriteStep], phase: StepPhase) async -> Bool {
        var failedAt: Int?
        var results: [StepResult] = []
        for (i, step) in steps.enumerated() {
            if failedAt != nil {
                results.append(StepResult(address: step.address, value: step.value, status: .notAttempted))
                continue
            }
            let value = UInt16(truncatingIfNeeded: step.value)
            let request = PlannedRequest(function: .fc06, address: step.address, count: 1, registerIds: [])
            let intent = ReplayEvent(.write, request: request, phase: phase)
            let unit = target.unit
            let link = target.linkOptions
            let sink = journaling ? self.sink : nil
            // The step's intent is journaled on the connection's queue, right before its frame.
            let sent = await target.connection.batch {
                c -> (event: ReplayEvent, error: ModbusError?, journaled: Bool, readBack: UInt16?, readError: ModbusError?, readFrames: Int)? in
                guard sink?.record(intent, true) ?? true else { return nil }
                var error: ModbusError?
                do throws(ModbusError) {
                    try c.writeRegister(unit: unit, address: step.address, value: value, options: link)
                } catch let e {
                    error = e
                }
                let frames = c.lastCall
                let answer = WriteAnswer.of(error: error, frames: frames)
                let event = ReplayEvent(
                    .step, request: request, answer: answer, frames: frames.sent,
                    exceptionCode: error?.exceptionCode.map(Int.init), message: error?.description, phase: phase)
                // Journaled here, before the read-back: the answer is a fact about the machine already.
                let journaled = sink?.record(event, false) ?? true
                guard error == nil else { return (event, error, journaled, nil, nil, 0) }
                // Read back like every other write. Unlock and commit registers are often commands that
                // clear themselves, so a different value is reported, not treated as a failure.
                do throws(ModbusError) {
                    let words = try c.readHoldingRegisters(unit: unit, address: step.address, count: 1, options: link)
                    return (event, nil, journaled, words[0], nil, c.lastCall.sent)
                } catch let readError {
                    return (event, nil, journaled, nil, readError, c.lastCall.sent)
                }
            }
            ledger.record(intent)
            guard let (event, error, journaled, readBack, readError, readBackFrames) = sent else {
                failedAt = i
                results.append(
                    StepResult(address: step.address, value: step.value, status: .notAttempted, message: "journal not writable"))
                report.stoppedAt = "\(phase.rawValue)[\(i)]"
                report.reason = "the journal could not be written: nothing further sent"
                journalBroken = true
                continue
            }
            readFrames += readBackFrames
            record(event, journaled: true)
            if !journaled { journalBroken = true }
            if let error {
                failedAt = i
                results.append(
                    StepResult(
                        address: step.address, value: step.value, status: event.answer == .noAnswer ? .inDoubt : .failed,
                        message: error.description))
                report.stoppedAt = "\(phase.rawValue)[\(i)]"
                report.reason = "\(phase.rawValue)[\(i)] (write \(step.value) to \(step.address)) failed: \(error)"
                continue
            }
            var result = StepResult(address: step.address, value: step.value, status: .ok)
            if let readBack {
                result.readBack = Int(readBack)
                if result.readBack != step.value {
                    result.message = "reads back \(readBack) (a command register that clears itself?)"
                    report.warnings.append("\(phase.rawValue)[\(i)]: wrote \(step.value) to \(step.address), reads back \(readBack)")
                }
            } else if let readError {
                result.message = "written; read-back failed: \(readError)"
                report.warnings.append("\(phase.rawValue)[\(i)]: read-back of \(step.address) failed: \(readError)")
            }
            results.append(result)
        }
        if phase == .beforeWrite { report.beforeWrite = results } else { report.afterWrite = results }
        return failedAt == nil
    }

    /// What one window did on the device.
    private struct WindowOutcome: Sendable {
        /// Journal events of the window's writes, in order.
        var events: [ReplayEvent] = []
        /// Index (in the plan) of the first write not sent.
        var next = 0
        /// The failing write: its index and error.
        var failure: (index: Int, error: ModbusError, answer: WriteAnswer)?
        var cancelled = false
        var journalFailed = false
        /// Words read back, and read frames sent.
        var readout = PageReadout()
        var readsSent: [Int] = []
    }

    /// Writes in page order, window by window (`ReplayPlan.windows`): a window's writes, then the reads
    /// of the read plan that no later write touches, in one hop onto the connection's executor. A
    /// register is checked once every read covering it was sent after its last write. Returns true
    /// when shutdown stopped it.
    private mutating func writeWindows() async -> Bool {
        guard var plan else { return false }
        let total = entries.count
        progress?(JobProgress(phase: .writing, done: 0, total: total))
        latest = PageReadout(
            covering: (plan.reads.map(\.address).min() ?? 0)..<(plan.reads.map(\.end).max() ?? 0))
        var windows = plan.windows()
        // The entries' spans, once (re-planning changes the writes, not the entries).
        let spans = plan.entries.map { AddressSpan(address: $0.address, length: $0.words.count) }
        var w = 0
        var openReads: Set<Int> = []
        // Registers (entry indices) written, waiting for their reads: the batch number of their last
        // write (0: not waiting), and the order they started waiting in.
        var awaiting = [Int](repeating: 0, count: plan.entries.count)
        var awaitingOrder: [Int] = []
        // The batch each read of the plan was last sent in (0: not yet).
        var readAt = [Int](repeating: 0, count: plan.reads.count)
        var batch = 0
        var acked = 0
        defer { self.plan = plan }
        // Where the next write's first register probably is (writes name the entries in order).
        var writeHint = 0
        /// Marks the registers of write `k` as waiting for reads sent after this batch.
        func markWritten(_ k: Int) {
            var hint = writeHint
            defer { writeHint = hint }
            for id in plan.writes[k].registerIds {
                guard let i = plan.entryIndex(id, hint: hint) else { continue }
                hint = i + 1
                if awaiting[i] == 0 { awaitingOrder.append(i) }
                awaiting[i] = batch
            }
            openReads.formUnion(plan.touched(plan.writes[k]))
        }
        while w < windows.count {
            batch += 1
            let window = windows[w]
            let outcome = await runWindow(window, plan: plan, spans: spans, acked: acked, total: total)
            for e in outcome.events { record(e, journaled: true) }
            readFrames += outcome.readout.requests
            for r in outcome.readsSent {
                readAt[r] = batch
                let read = plan.reads[r]
                latest.forget(read.address, read.end)
                latest.merge(outcome.readout, read.address, read.end)
            }
            // Which registers this window wrote (or may have).
            for k in window.writes.lowerBound..<outcome.next { markWritten(k) }
            if let f = outcome.failure, f.answer == .noAnswer { markWritten(f.index) }
            openReads.subtract(outcome.readsSent)
            // Check every awaiting register whose reads were all sent after its last write.
            var checked: [Int] = []
            var kept = 0
            for k in awaitingOrder.indices {
                let i = awaitingOrder[k]
                let writtenIn = awaiting[i]
                let s = spans[i]
                var ready = true
                for r in plan.touchedRange(address: s.address, end: s.end) where readAt[r] < writtenIn {
                    ready = false
                    break
                }
                if ready {
                    checked.append(i)
                    awaiting[i] = 0
                } else {
                    awaitingOrder[kept] = i
                    kept += 1
                }
            }
            awaitingOrder.removeLast(awaitingOrder.count - kept)
            // Entry i is register i of the ledger: its read-back recorded from the words (the hex is
            // made only for the journal's line), then compared with its expected words.
            let journals = journaling
            var checks: [JournalCheck] = []
            var mismatch: Int?
            var unread: (index: Int, cause: String)?
            for i in checked {
                let s = spans[i]
                let read = latest.withWords(for: s) { ledger.recordCheck(at: i, words: $0) } != nil
                if read {
                    if journals { checks.append(JournalCheck(registerId: plan.entries[i].registerId, data: latest.hex(for: s))) }
                    if mismatch == nil && ledger.checkDiffers(at: i) && ledger.answer(at: i) == .acknowledged { mismatch = i }
                } else {
                    let cause = outcome.readout.failure(for: s).map(String.init(describing:)) ?? "not read"
                    ledger.recordCheck(at: i, words: nil, message: cause)
                    if journals { checks.append(JournalCheck(registerId: plan.entries[i].registerId, data: nil, message: cause)) }
                    if unread == nil { unread = (i, cause) }
                }
            }
            if !checks.isEmpty { journal(ReplayEvent(.check, checks: checks)) }
            acked = ledger.acknowledgedRegisters
            progress?(JobProgress(phase: .writing, done: acked, total: total))
            if options.onError != .continue {
                if let m = mismatch {
                    report.stoppedAt = "after a mismatch at \(plan.entries[m].registerId)"
                    report.reason = "read-back differs from the template"
                    return false
                }
                if let u = unread {
                    report.stoppedAt = "after writing \(plan.entries[u.index].registerId): read-back failed"
                    report.reason = "read-back failed: \(u.cause)"
                    return false
                }
            }
            if outcome.journalFailed {
                report.stoppedAt = "before \(plan.writes[outcome.next].registerIds.first ?? "?"): journal not writable"
                report.reason = "the journal could not be written: nothing further sent"
                return false
            }
            if outcome.cancelled {
                let next = outcome.next < plan.writes.count ? plan.writes[outcome.next].registerIds.first ?? "?" : "the end"
                report.stoppedAt = "shutdown before \(next)"
                report.reason = "stopped by shutdown at a clean point"
                return true
            }
            guard let (k, error, answer) = outcome.failure else {
                w += 1
                continue
            }
            let request = plan.writes[k]
            var limits = plan.writeLimits
            // The registers the request writes (entry indices) and their full lengths.
            var named: [Int] = []
            var hint = writeHint
            for id in request.registerIds {
                guard let i = plan.entryIndex(id, hint: hint) else { continue }
                hint = i + 1
                named.append(i)
            }
            let refusal =
                error.exceptionCode.map {
                    WriteRefusal.decide(
                        function: request.function, exceptionCode: $0, wordCount: request.words.count,
                        registerLengths: named.map { spans[$0].length }, writeFunction: limits.writeFunction,
                        fellBackToFC06: report.fellBackToFC06)
                } ?? .rejected
            var isolate = false
            switch refusal {
            case .fallBackToFC06:
                // The device does not implement FC16: go on with FC06 from this request on.
                report.fellBackToFC06 = true
                report.warnings.append("device refused FC16 (exception 01); fell back to FC06")
                limits.writeFunction = .fc06
            case .shorten(let limit):
                // A merged write refused (illegal data value): perhaps too long, perhaps one value. Its
                // registers again in shorter writes of their own (inside its window), whole; the limit is
                // learned for the device only if they are all then acknowledged (`WriteLimitEvidence`).
                limits.maxWriteRegisters = limit
                isolate = true
                writeEvidence.tried(limit, for: named)
                report.warnings.append(
                    "device refused a \(request.words.count)-register write of \(request.registerIds.count) registers (exception 03); writes of at most \(limit) from \(request.registerIds.first ?? "?") on"
                )
            case .rejected:
                if options.onError != .continue {
                    report.stoppedAt =
                        "at \(request.registerIds.first ?? "?") (\(request.function.rawValue) \(request.address)+\(request.words.count))"
                    report.reason =
                        error.exceptionCode == 0x03
                        ? "write rejected: the device refused the value (illegal data value): \(error)"
                        : "write failed: \(error)"
                    return false
                }
                // onError continue: on with the next write.
                windows = plan.windows(from: k + 1, pending: openReads.sorted())
                w = 0
                continue
            }
            plan.replan(from: k, limits: limits, isolatingFirst: isolate)
            record(
                ReplayEvent(
                    .replan, request: PlannedRequest(request), requests: plan.writes[k...].map(PlannedRequest.init),
                    message: limits.writeFunction == .fc06 ? "FC06 fallback" : "max \(limits.maxWriteRegisters) per write"))
            windows = plan.windows(from: k, pending: openReads.sorted())
            w = 0
        }
        return false
    }

    /// Sends one window's writes (until one fails, shutdown, or the journal refuses) and then its
    /// reads — the window's due reads when every write went through, else the reads covering what was
    /// sent — in one hop onto the connection's executor.
    private func runWindow(_ window: ReplayPlan.Window, plan: ReplayPlan, spans: [AddressSpan], acked: Int, total: Int) async
        -> WindowOutcome
    {
        let unit = target.unit
        let link = target.linkOptions
        let sink = self.sink
        let journaling = ledger.intent != nil
        let progress = self.progress
        let target = self.target
        return await target.connection.batch { c in
            var out = WindowOutcome()
            out.next = window.writes.lowerBound
            var done = acked
            for k in window.writes {
                if Task.isCancelled {
                    out.cancelled = true
                    break
                }
                let request = plan.writes[k]
                let journal = PlannedRequest(request)
                let intent = ReplayEvent(.write, request: journal)
                if journaling, let sink, !sink.record(intent, true) {
                    out.journalFailed = true
                    break
                }
                out.events.append(intent)
                var error: ModbusError?
                do throws(ModbusError) {
                    switch request.function {
                    case .fc16:
                        try c.writeRegisters(unit: unit, address: request.address, values: request.words, options: link)
                    case .fc06:
                        try c.writeRegister(unit: unit, address: request.address, value: request.words[0], options: link)
                    }
                } catch let e {
                    error = e
                }
                let frames = c.lastCall
                let answer = WriteAnswer.of(error: error, frames: frames)
                let event = ReplayEvent(
                    .answer, request: journal, answer: answer, frames: frames.sent,
                    exceptionCode: error?.exceptionCode.map(Int.init), message: error?.description)
                if journaling, let sink { _ = sink.record(event, false) }
                out.events.append(event)
                if let error {
                    out.failure = (k, error, answer)
                    break
                }
                out.next = k + 1
                done += request.registerIds.count
                progress?(JobProgress(phase: .writing, done: min(done, total), total: total))
            }
            // The reads: the window's, or after a stop those covering whatever was (or may have been) sent.
            var reads = window.reads
            if out.next < window.writes.upperBound {
                var touched = Set(window.carriedIn)
                for k in window.writes.lowerBound..<out.next { touched.formUnion(plan.touched(plan.writes[k])) }
                if let f = out.failure, f.answer == .noAnswer { touched.formUnion(plan.touched(plan.writes[f.index])) }
                reads = touched.sorted()
            }
            out.readout = PageReadout(
                covering: (reads.map { plan.reads[$0].address }.min() ?? 0)..<(reads.map { plan.reads[$0].end }.max() ?? 0))
            for r in reads {
                PageReader.perform(plan.reads[r], spans: spans, into: &out.readout, on: c, target: target)
                out.readsSent.append(r)
            }
            return out
        }
    }

    /// Reads every written register once more: a value that changed after its own verification (a
    /// drive resetting dependent parameters) is reported `changedLater`.
    private mutating func finalPass() async {
        guard plan != nil else { return }
        let written = ledger.touchedIndices
        guard !written.isEmpty else { return }
        progress?(JobProgress(phase: .verifying, done: 0, total: written.count))
        let spans = written.map { ledger.span(at: $0) }
        let readout = await PageReader.read(spans, from: target)
        readFrames += readout.requests
        // Recorded from the words; the hex made only for the journal's line.
        let journals = journaling
        var checks: [JournalCheck] = []
        if journals { checks.reserveCapacity(written.count) }
        for (i, s) in zip(written, spans) {
            if readout.withWords(for: s, { ledger.recordCheck(at: i, words: $0, final: true) }) != nil {
                if journals { checks.append(JournalCheck(registerId: ledger.registerId(at: i), data: readout.hex(for: s))) }
            } else {
                let cause = readout.failure(for: s).map(String.init(describing:)) ?? "not read"
                ledger.recordCheck(at: i, words: nil, message: cause, final: true)
                if journals { checks.append(JournalCheck(registerId: ledger.registerId(at: i), data: nil, message: cause)) }
            }
        }
        if journals { journal(ReplayEvent(.finalCheck, checks: checks)) }
        progress?(JobProgress(phase: .verifying, done: written.count, total: written.count))
    }

    // MARK: rollback

    /// Restores every register a frame of this replay may have changed (acknowledged or in doubt; a
    /// refused frame stored nothing) to its snapshot value, then verifies, even when shutdown was
    /// requested (a rollback must finish).
    private mutating func rollBack() async {
        let touched = ledger.touchedIndices.map { ledger.fate(at: $0) }
        guard !touched.isEmpty else { return }
        progress?(JobProgress(phase: .rollingBack, done: 0, total: touched.count))
        var limits = plan?.writeLimits ?? target.limits
        if report.fellBackToFC06 { limits.writeFunction = .fc06 }
        let restores = touched.compactMap { f -> PlannedWrite? in
            f.beforeData.flatMap { [UInt16](valueDataHex: $0) }.map {
                PlannedWrite(registerId: f.registerId, address: f.address, words: $0)
            }
        }
        for request in RequestPlanner.writes(restores, limits: limits, declaredMaxWrite: target.limits.maxWriteRegisters) {
            let unit = target.unit
            let link = target.linkOptions
            let (frames, error) = await target.connection.batch { c -> (CallFrames, ModbusError?) in
                do throws(ModbusError) {
                    switch request.function {
                    case .fc16: try c.writeRegisters(unit: unit, address: request.address, values: request.words, options: link)
                    case .fc06: try c.writeRegister(unit: unit, address: request.address, value: request.words[0], options: link)
                    }
                    return (c.lastCall, nil)
                } catch {
                    return (c.lastCall, error)
                }
            }
            let answer = WriteAnswer.of(error: error, frames: frames)
            record(
                ReplayEvent(
                    .restore, request: PlannedRequest(request), answer: answer, frames: frames.sent,
                    exceptionCode: error?.exceptionCode.map(Int.init), message: error?.description))
        }
        let spans = touched.map { AddressSpan(address: $0.address, length: $0.length) }
        let readback = await PageReader.read(spans, from: target, evenIfCancelled: true)
        readFrames += readback.requests
        record(
            ReplayEvent(
                .restoreCheck,
                checks: touched.map { f in
                    let s = AddressSpan(address: f.address, length: f.length)
                    return JournalCheck(
                        registerId: f.registerId, data: readback.hex(for: s),
                        message: readback.failure(for: s).map(String.init(describing:)))
                }))
        progress?(JobProgress(phase: .rollingBack, done: touched.count, total: touched.count))
    }
}

extension WriteAnswer {
    /// The answer of a write call that threw `error` (nil: none) after sending `frames`.
    static func of(error: ModbusError?, frames: CallFrames) -> WriteAnswer {
        of(failed: error != nil, exception: error?.exceptionCode != nil, unansweredFrames: frames.unanswered)
    }
}
