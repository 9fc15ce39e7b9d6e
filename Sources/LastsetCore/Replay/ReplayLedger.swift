import Foundation

/// The state of every register of a replay, folded from its journal (`ReplayEvent`s). The report's
/// register lines, the audit record's registers and the crash record after an interruption are all
/// derived here, from the same events, so they cannot disagree.
///
/// Kept as columns (one array per field, register i at index i; words in `HexColumn`s) rather than a
/// struct per register: a replay folds an event per write, answer and read-back into thousands of
/// registers, and a struct of strings per register was copied, compared as hex and parsed back into
/// words for every report line. `Fate` is the one-register view, made on demand.
public struct ReplayLedger: Sendable {
    /// One register's path through the replay.
    public struct Fate: Sendable, Hashable {
        public var registerId: String
        public var address: Int
        public var length: Int
        public var expected: RegisterValue
        public var expectedData: String
        public var before: RegisterValue?
        public var beforeData: String?
        /// A frame writing some of its words was sent.
        public var sent = false
        /// Words the device acknowledged.
        public var wordsAcknowledged = 0
        /// The last answer to a request writing it.
        public var answer: WriteAnswer?
        public var exceptionCode: Int?
        public var message: String?
        /// Its verification read: words (hex) or nil when the read failed; absent when never read.
        public var check: JournalCheck?
        /// The final pass's read.
        public var finalCheck: JournalCheck?
        /// The rollback's restore answer and read-back.
        public var restoreAnswer: WriteAnswer?
        public var restoreMessage: String?
        public var restoreCheck: JournalCheck?
    }

    /// The intent (nil until journaled: a replay refused or dry-run before any write has none).
    public private(set) var intent: ReplayIntent?
    /// Write frames sent (retries included), register writes, steps and restores.
    public private(set) var writeFrames = 0
    /// Registers with every word acknowledged (kept as events arrive: progress asks once a window).
    public private(set) var acknowledgedRegisters = 0
    /// The end event's status, when the replay ended.
    public private(set) var ended: ReplayStatus?
    /// A rollback started.
    public private(set) var rolledBack = false
    /// The `beforeWrite` / `afterWrite` steps: those the intent listed, and how each went (sent, answered).
    public private(set) var steps: [StepFate] = []
    /// Write frames of the steps (part of `writeFrames`).
    public private(set) var stepFrames = 0

    // The columns: register i of the replay (page order) at index i of each.
    private var ids: [String] = []
    private var addresses: [Int] = []
    private var lengths: [Int] = []
    private var expectedValues: [RegisterValue] = []
    /// The expected words as words (compared) and as the hex the intent gave (reported).
    private var expectedData = HexColumn()
    private var expectedTexts: [String] = []
    private var beforeValues: [RegisterValue?] = []
    private var beforeData = HexColumn()
    private var sent: [Bool] = []
    private var acknowledgedWords: [Int] = []
    private var answers: [WriteAnswer?] = []
    // Rare fields, by register: only failures and rollbacks set them.
    private var exceptionCodes: [Int: Int] = [:]
    private var messages: [Int: String] = [:]
    private var checks = HexColumn()
    private var finalChecks = HexColumn()
    /// Whether each read-back has data equal to the expected words, kept as the read-backs are recorded
    /// (every status asks, several times per replay; the expected words change only by registering).
    private var checkMatches: [Bool] = []
    private var finalMatches: [Bool] = []
    private var restoreAnswers: [Int: WriteAnswer] = [:]
    private var restoreMessages: [Int: String] = [:]
    private var restoreChecks: [Int: JournalCheck] = [:]
    /// Each register's origin (`EntryOrigin`), when the page layers overrides or tolerances over the template;
    /// empty otherwise (every value the template's, exact).
    public private(set) var origins: [EntryOrigin?] = []
    /// Registers whose read-back is verified within their band (a device that rounds): position → band and the
    /// layout that decodes the words (`holdToBands`).
    private var bands: [Int: (tolerance: Tolerance, layout: RegisterLayout)] = [:]

    /// Register ids to positions (the first, when an id repeats); nil until a lookup misses both
    /// hints (built then), or always built when the ids were not known to be unique.
    private var position: [String: Int]?
    /// Where the next lookup probably lands: events name registers in page order, so most lookups are
    /// one string comparison, not a hash. Not used when an id repeats (the index keeps the first).
    private var cursor = 0
    /// Where the previous event's first register was: an answer names the registers its write named.
    private var eventStart = 0
    private var idsUnique = true

    /// An empty ledger.
    public init() {}

    /// A ledger folded from journaled events (e.g. read back after a crash).
    public init(events: [ReplayEvent]) {
        for e in events { record(e) }
    }

    /// Number of registers.
    public var count: Int { ids.count }

    /// Registers in page order (made from the columns: for tests and single lookups, not for loops).
    public var fates: [Fate] { ids.indices.map { fate(at: $0) } }

    /// Register `i`'s fate.
    public func fate(at i: Int) -> Fate {
        Fate(
            registerId: ids[i], address: addresses[i], length: lengths[i], expected: expectedValues[i],
            expectedData: expectedTexts[i], before: beforeValues[i], beforeData: beforeData.hex(i), sent: sent[i],
            wordsAcknowledged: acknowledgedWords[i], answer: answers[i], exceptionCode: exceptionCodes[i],
            message: messages[i], check: checks.check(i, registerId: ids[i]),
            finalCheck: finalChecks.check(i, registerId: ids[i]), restoreAnswer: restoreAnswers[i],
            restoreMessage: restoreMessages[i], restoreCheck: restoreChecks[i])
    }

    /// Register `i`'s id.
    public func registerId(at i: Int) -> String { ids[i] }

    /// Register `i`'s address span.
    public func span(at i: Int) -> AddressSpan { AddressSpan(address: addresses[i], length: lengths[i]) }

    /// Register `i`'s last write answer.
    public func answer(at i: Int) -> WriteAnswer? { answers[i] }

    /// True when the device acknowledged every word of register `i`.
    public func acknowledgedWhole(at i: Int) -> Bool { acknowledgedWords[i] >= lengths[i] }

    /// Register `i`'s expected words as hex (the intent's `expectedData`).
    public func expectedData(at i: Int) -> String { expectedTexts[i] }

    /// True when register `i`'s verification read has data and it differs from the expected words.
    public func checkDiffers(at i: Int) -> Bool { checks.hasData(i) && !checkMatches[i] }

    /// The registers as the intent journals them.
    public var intentRegisters: [IntentRegister] {
        ids.indices.map { i in
            IntentRegister(
                registerId: ids[i], address: addresses[i], length: lengths[i], expected: expectedValues[i],
                expectedData: expectedTexts[i], before: beforeValues[i], beforeData: beforeData.hex(i), origin: origin(at: i))
        }
    }

    /// Register `i`'s origin (nil: the template's, exact).
    public func origin(at i: Int) -> EntryOrigin? { origins.isEmpty ? nil : origins[i] }

    /// Each register's expected words and their value (decoded with the page the replay ran on): what a
    /// successful replay wrote, as the device state keeps it for polling.
    public var appliedEntries: [RecordedValue] {
        ids.indices.map { i in
            RecordedValue(
                registerId: ids[i], address: addresses[i], valueData: expectedTexts[i], value: expectedValues[i],
                origin: origin(at: i))
        }
    }

    /// The registers of a replay before its intent is journaled (dry run, refusals, the snapshot).
    /// The same registers again (the snapshot's "before", then the intent): each starts over, the index stays.
    public mutating func register(_ registers: [IntentRegister]) {
        let sameIds = registers.count == ids.count && registers.indices.allSatisfy { registers[$0].registerId == ids[$0] }
        if !sameIds {
            bands = [:]
            ids = registers.map(\.registerId)
            // Backwards, so a repeated id keeps its first position.
            var index = [String: Int](minimumCapacity: registers.count)
            for i in registers.indices.reversed() { index[registers[i].registerId] = i }
            idsUnique = index.count == registers.count
            position = index
        }
        startOver(count: registers.count)
        origins = registers.contains { $0.origin != nil } ? registers.map(\.origin) : []
        registers.withUnsafeBufferPointer { rs in
            for i in rs.indices {
                addresses[i] = rs[i].address
                lengths[i] = rs[i].length
                expectedValues[i] = rs[i].expected
                expectedTexts[i] = rs[i].expectedData
                expectedData.set(i, hex: rs[i].expectedData)
                beforeValues[i] = rs[i].before
                if let before = rs[i].beforeData { beforeData.set(i, hex: before) }
            }
        }
    }

    /// The replay's own registration, without an `IntentRegister` per register: unique `registerIds`
    /// (a template check refuses repeats), register i's expected words `expectedWords[wordStarts[i] ..<
    /// wordStarts[i] + lengths[i]]` and their hex `expectedData[i]` (`ValueHex.string(words:)` of them).
    /// The same as `register` of the registers with those values and no "before".
    public mutating func register(
        uniqueIds registerIds: [String], addresses: [Int], lengths: [Int], expected: [RegisterValue],
        expectedData texts: [String], expectedWords: [UInt16], wordStarts: [Int], origins: [EntryOrigin?] = []
    ) {
        self.origins = origins
        bands = [:]
        if registerIds != ids {
            ids = registerIds
            position = nil
            idsUnique = true
        }
        startOver(count: registerIds.count)
        self.addresses = addresses
        self.lengths = lengths
        expectedValues = expected
        expectedTexts = texts
        expectedData = HexColumn(words: expectedWords, starts: wordStarts, counts: lengths)
    }

    /// The snapshot's reading of register `i` (its "before"; nil words: not read), before anything else
    /// is recorded: what registering the same registers again with that "before" gives.
    public mutating func recordBefore(at i: Int, value: RegisterValue?, words: UnsafeBufferPointer<UInt16>?) {
        beforeValues[i] = value
        if let words { beforeData.set(i, words: words) }
    }

    /// Every column fresh for `count` registers (ids and index set by the caller).
    private mutating func startOver(count n: Int) {
        if addresses.count != n {
            addresses = [Int](repeating: 0, count: n)
            lengths = [Int](repeating: 0, count: n)
            expectedValues = [RegisterValue](repeating: .unsigned(0), count: n)
            expectedTexts = [String](repeating: "", count: n)
            beforeValues = [RegisterValue?](repeating: nil, count: n)
            sent = [Bool](repeating: false, count: n)
            acknowledgedWords = [Int](repeating: 0, count: n)
            answers = [WriteAnswer?](repeating: nil, count: n)
            checkMatches = [Bool](repeating: false, count: n)
            finalMatches = [Bool](repeating: false, count: n)
        } else {
            for i in 0..<n {
                beforeValues[i] = nil
                sent[i] = false
                acknowledgedWords[i] = 0
                answers[i] = nil
                checkMatches[i] = false
                finalMatches[i] = false
            }
        }
        expectedData.reset(count: n)
        beforeData.reset(count: n)
        checks.reset(count: n)
        finalChecks.reset(count: n)
        if !exceptionCodes.isEmpty { exceptionCodes.removeAll() }
        if !messages.isEmpty { messages.removeAll() }
        if !restoreAnswers.isEmpty { restoreAnswers.removeAll() }
        if !restoreMessages.isEmpty { restoreMessages.removeAll() }
        if !restoreChecks.isEmpty { restoreChecks.removeAll() }
        cursor = 0
        eventStart = 0
        acknowledgedRegisters = 0
    }

    /// The fate of a register.
    public func fate(_ registerId: String) -> Fate? { index(of: registerId).map { fate(at: $0) } }

    /// The position of a register in `fates`.
    public func index(of registerId: String) -> Int? {
        if idsUnique && cursor < ids.count && ids[cursor] == registerId { return cursor }
        if let position { return position[registerId] }
        return ids.firstIndex(of: registerId)
    }

    /// `index(of:)`, trying where the previous event started too, and building the index when both miss.
    private mutating func lookup(_ registerId: String, first: Bool) -> Int? {
        if idsUnique {
            if cursor < ids.count && ids[cursor] == registerId { return cursor }
            if first && eventStart < ids.count && ids[eventStart] == registerId { return eventStart }
        }
        if position == nil {
            var index = [String: Int](minimumCapacity: ids.count)
            for i in ids.indices.reversed() { index[ids[i]] = i }
            position = index
        }
        return position![registerId]
    }

    /// Applies one transition.
    public mutating func record(_ event: ReplayEvent) {
        switch event.kind {
        case .intent: if let i = event.intent { recordIntent(i) }
        case .step: recordStep(event)
        case .write: recordWrite(event)
        case .answer: recordAnswer(event)
        case .replan: recordReplan(event)
        case .check: recordChecks(event.checks ?? [], final: false)
        case .finalCheck: recordChecks(event.checks ?? [], final: true)
        case .restore: recordRestore(event)
        case .restoreCheck: recordRestoreChecks(event.checks ?? [])
        case .end: ended = event.status
        }
    }

    /// The intent: the registers the replay may write, and its steps.
    private mutating func recordIntent(_ i: ReplayIntent) {
        intent = i
        register(i.registers)
        steps =
            (i.beforeWrite ?? []).enumerated().map {
                StepFate(phase: .beforeWrite, index: $0, address: $1.address, value: $1.value)
            }
            + (i.afterWrite ?? []).enumerated().map {
                StepFate(phase: .afterWrite, index: $0, address: $1.address, value: $1.value)
            }
    }

    /// A step's answer.
    private mutating func recordStep(_ event: ReplayEvent) {
        writeFrames += event.frames ?? 0
        stepFrames += event.frames ?? 0
        guard let phase = event.phase, let request = event.request else { return }
        let k = step(phase, request.address, sent: true)
        steps[k].sent = true
        steps[k].answer = event.answer
        steps[k].exceptionCode = event.exceptionCode
        steps[k].message = event.message
    }

    /// A write request (or step) about to be sent, journaled before its frame.
    private mutating func recordWrite(_ event: ReplayEvent) {
        if let phase = event.phase, let request = event.request {
            steps[step(phase, request.address, sent: false)].sent = true
            return
        }
        forEach(event.request?.registerIds ?? []) { l, i in l.sent[i] = true }
    }

    /// A write request's answer, for each register inside it.
    private mutating func recordAnswer(_ event: ReplayEvent) {
        writeFrames += event.frames ?? 0
        guard let request = event.request, let answer = event.answer else { return }
        let markSent = answer != .notSent || (event.frames ?? 0) > 0
        var acknowledged = 0
        forEach(request.registerIds) { l, i in
            if markSent { l.sent[i] = true }
            if answer == .acknowledged {
                // Words of this register inside the request.
                let lo = max(l.addresses[i], request.address)
                let hi = min(l.addresses[i] + l.lengths[i], request.address + request.count)
                let length = l.lengths[i]
                let wasComplete = l.acknowledgedWords[i] >= length
                l.acknowledgedWords[i] += max(0, hi - lo)
                if !wasComplete && l.acknowledgedWords[i] >= length { acknowledged += 1 }
                // An earlier word's doubt is settled only by a read-back, not by a later word;
                // a refused request re-planned (FC06 fallback, shorter writes) is superseded.
                if l.answers[i] != .noAnswer {
                    l.answers[i] = .acknowledged
                    if !l.exceptionCodes.isEmpty { l.exceptionCodes[i] = nil }
                    if !l.messages.isEmpty { l.messages[i] = nil }
                }
            } else if l.answers[i] != .noAnswer {
                // A frame that got no answer may have stored the words: a later refusal or a frame
                // not sent does not settle that doubt (only a read-back does).
                l.answers[i] = answer
                l.exceptionCodes[i] = event.exceptionCode
                l.messages[i] = event.message
            }
        }
        acknowledgedRegisters += acknowledged
    }

    /// The refused request a re-plan supersedes (`request`): its words are planned again (FC06 fallback,
    /// shorter writes), so its refusal is no longer its registers' fate — a register the replay then stops
    /// before writing again was never written.
    private mutating func recordReplan(_ event: ReplayEvent) {
        guard let superseded = event.request else { return }
        forEach(superseded.registerIds) { l, i in
            guard l.answers[i] == .rejected else { return }
            let acknowledged = l.acknowledgedWords[i] > 0
            l.answers[i] = acknowledged ? .acknowledged : nil
            l.sent[i] = acknowledged
            if !l.exceptionCodes.isEmpty { l.exceptionCodes[i] = nil }
            if !l.messages.isEmpty { l.messages[i] = nil }
        }
    }

    /// Read-back checks (after a window, or of the final pass), each compared with the expected words.
    private mutating func recordChecks(_ events: [JournalCheck], final: Bool) {
        for c in events {
            guard let i = lookup(c.registerId, first: true) else { continue }
            cursor = i + 1
            if final {
                finalChecks.set(i, check: c)
                finalMatches[i] = finalChecks.dataEquals(i, expectedData, i) || bandHolds(finalChecks, i)
            } else {
                checks.set(i, check: c)
                checkMatches[i] = checks.dataEquals(i, expectedData, i) || bandHolds(checks, i)
            }
        }
    }

    /// A rollback's restore request: the worst answer of a register's restore requests wins.
    private mutating func recordRestore(_ event: ReplayEvent) {
        rolledBack = true
        writeFrames += event.frames ?? 0
        forEach(event.request?.registerIds ?? []) { l, i in
            if l.restoreAnswers[i] == nil || l.restoreAnswers[i] == .acknowledged {
                l.restoreAnswers[i] = event.answer
                l.restoreMessages[i] = event.message
            }
        }
    }

    /// A rollback's read-back checks.
    private mutating func recordRestoreChecks(_ checks: [JournalCheck]) {
        rolledBack = true
        for c in checks {
            guard let i = lookup(c.registerId, first: true) else { continue }
            cursor = i + 1
            restoreChecks[i] = c
        }
    }

    /// The step of `phase` at `address` a `.write` (`sent: false`: the first not yet sent) or a `.step`
    /// (`sent: true`: the first sent and not answered) names; one not listed by the intent is added.
    private mutating func step(_ phase: StepPhase, _ address: Int, sent: Bool) -> Int {
        if let k = steps.firstIndex(where: {
            $0.phase == phase && $0.address == address && $0.sent == sent && $0.answer == nil
        }) {
            return k
        }
        guard !sent else {
            // A `.step` whose `.write` was not found: a step of its own.
            return step(phase, address, sent: false)
        }
        let index = steps.filter { $0.phase == phase }.count
        let at = phase == .beforeWrite ? (steps.lastIndex { $0.phase == .beforeWrite }.map { $0 + 1 } ?? 0) : steps.count
        steps.insert(StepFate(phase: phase, index: index, address: address, value: nil), at: at)
        return at
    }

    /// The steps of `phase` as report / audit lines; nil when one's value is not known (a journal written
    /// before intents listed their steps) or the phase has none.
    public func stepResults(_ phase: StepPhase) -> [StepResult]? {
        let of = steps.filter { $0.phase == phase }
        guard !of.isEmpty else { return nil }
        let results = of.compactMap(\.result)
        return results.count == of.count ? results : nil
    }

    /// What the steps sent mean for the machine (`StepHazard`).
    public var stepHazard: StepHazard { StepHazard.of(steps) }

    /// The steps for a record that did not finish, nil when there are none: each named with how it went,
    /// the hazard, and the counts — `beforeWrite[0] 1536 := 6868 acknowledged, afterWrite[0] 2304 := 0 not
    /// sent: the machine may be left unlocked (…); steps: 1 sent, 1 answered`.
    public var stepsText: String? {
        guard !steps.isEmpty else { return nil }
        var text = steps.map(\.description).joined(separator: ", ")
        if let warning = stepHazard.warning { text += ": " + warning }
        let sent = steps.filter(\.sent).count
        let answered = steps.filter { $0.answer == .acknowledged || $0.answer == .rejected }.count
        return text + "; steps: \(sent) sent, \(answered) answered"
    }

    /// Calls `body` with the position of each id (ids not registered skipped), moving the hints.
    private mutating func forEach(_ registerIds: [String], _ body: (inout ReplayLedger, Int) -> Void) {
        var first = true
        for id in registerIds {
            guard let i = lookup(id, first: first) else { continue }
            if first { eventStart = i }
            first = false
            cursor = i + 1
            body(&self, i)
        }
    }

    /// Records register `i`'s verification read (`final`: the final pass's) from its words (nil: the
    /// read failed, `message` says why): what folding a `.check` (`.finalCheck`) event of a
    /// `JournalCheck` with those words as hex gives, without making the hex.
    public mutating func recordCheck(at i: Int, words: UnsafeBufferPointer<UInt16>?, message: String? = nil, final: Bool = false)
    {
        if final {
            finalChecks.set(i, words: words, message: message)
            finalMatches[i] = finalChecks.dataEquals(i, expectedData, i) || inBand(i, words)
        } else {
            checks.set(i, words: words, message: message)
            checkMatches[i] = checks.dataEquals(i, expectedData, i) || inBand(i, words)
        }
    }

    /// From now on, a register with a tolerance (`origins`) verifies when its read-back lies within its band
    /// around the expected value (`Tolerance.contains`), not only when its words are equal; `layout(i)` decodes
    /// register i's words.
    public mutating func holdToBands(layout: (Int) -> RegisterLayout) {
        bands = [:]
        for i in origins.indices {
            if let t = origins[i]?.tolerance { bands[i] = (t, layout(i)) }
        }
    }

    /// `inBand` of the words a column holds for register `i`.
    private func bandHolds(_ column: HexColumn, _ i: Int) -> Bool {
        guard bands[i] != nil else { return false }
        return column.withWords(i) { inBand(i, $0) } ?? false
    }

    /// Whether register `i`'s read words lie within its band (false: it has none, or they are not numbers).
    private func inBand(_ i: Int, _ words: UnsafeBufferPointer<UInt16>?) -> Bool {
        guard let band = bands[i], let words, let expected = expectedValues[i].number,
            let live = RegisterCodec.decode(words, layout: band.layout).number
        else { return false }
        return band.tolerance.contains(live, around: expected)
    }

    // MARK: derived

    /// What a register's status is derived from (the same for a `Fate` and for the columns).
    private struct Facts {
        var dryRun: Bool
        var hasBefore: Bool
        var beforeIsExpected: Bool
        var answer: WriteAnswer?
        var sent: Bool
        var wordsAcknowledged: Int
        var length: Int
        var hasCheck: Bool
        var checkHasData: Bool
        var checkIsExpected: Bool
        var hasFinal: Bool
        var finalHasData: Bool
        var finalIsExpected: Bool
    }

    private static func status(_ f: Facts) -> RegisterStatus {
        if f.dryRun {
            guard f.hasBefore else { return .notAttempted }
            return f.beforeIsExpected ? .unchanged : .differs
        }
        let answer = f.answer
        guard f.sent || answer != nil else { return .notAttempted }
        let readOK = f.checkIsExpected
        switch answer {
        case .rejected?:
            return .rejected
        case .notSent?:
            return f.wordsAcknowledged > 0 ? .unverified : .failed
        case .noAnswer?:
            // A read-back settles the doubt only when it shows the value.
            if readOK, !f.hasFinal || f.finalIsExpected { return .verified }
            return .inDoubt
        case .acknowledged?, nil:
            guard f.wordsAcknowledged >= f.length || answer == nil else { return .unverified }
            guard f.hasCheck, f.checkHasData else { return f.sent && answer == nil ? .inDoubt : .unverified }
            guard readOK else { return .mismatch }
            if f.finalHasData, !f.finalIsExpected { return .changedLater }
            return .verified
        }
    }

    private static func facts(_ f: Fate, dryRun: Bool) -> Facts {
        Facts(
            dryRun: dryRun, hasBefore: f.beforeData != nil, beforeIsExpected: f.beforeData == f.expectedData,
            answer: f.answer, sent: f.sent, wordsAcknowledged: f.wordsAcknowledged, length: f.length,
            hasCheck: f.check != nil, checkHasData: f.check?.data != nil, checkIsExpected: f.check?.data == f.expectedData,
            hasFinal: f.finalCheck != nil, finalHasData: f.finalCheck?.data != nil,
            finalIsExpected: f.finalCheck?.data == f.expectedData)
    }

    private func facts(_ i: Int, dryRun: Bool) -> Facts {
        if dryRun {
            return Facts(
                dryRun: true, hasBefore: beforeData.hasData(i), beforeIsExpected: beforeData.dataEquals(i, expectedData, i),
                answer: nil, sent: false, wordsAcknowledged: 0, length: 0, hasCheck: false, checkHasData: false,
                checkIsExpected: false, hasFinal: false, finalHasData: false, finalIsExpected: false)
        }
        return Facts(
            dryRun: false, hasBefore: false, beforeIsExpected: false, answer: answers[i], sent: sent[i],
            wordsAcknowledged: acknowledgedWords[i], length: lengths[i], hasCheck: checks.isPresent(i),
            checkHasData: checks.hasData(i), checkIsExpected: checkMatches[i], hasFinal: finalChecks.isPresent(i),
            finalHasData: finalChecks.hasData(i), finalIsExpected: finalMatches[i])
    }

    /// A register's status as the report gives it.
    public func status(of f: Fate, dryRun: Bool = false) -> RegisterStatus { Self.status(Self.facts(f, dryRun: dryRun)) }

    /// Register `i`'s status as the report gives it.
    public func status(at i: Int, dryRun: Bool = false) -> RegisterStatus { Self.status(facts(i, dryRun: dryRun)) }

    /// True when a frame that may have stored some of the register's words was sent: some words
    /// acknowledged, or a frame in doubt (sent without an answer, or journaled and never answered). A
    /// refused frame changed nothing (the device answered an exception instead of storing).
    public func touched(_ f: Fate) -> Bool {
        Self.touched(answer: f.answer, sent: f.sent, wordsAcknowledged: f.wordsAcknowledged)
    }

    private static func touched(answer: WriteAnswer?, sent: Bool, wordsAcknowledged: Int) -> Bool {
        wordsAcknowledged > 0 || answer == .noAnswer || (sent && answer == nil)
    }

    private func touched(_ i: Int) -> Bool {
        Self.touched(answer: answers[i], sent: sent[i], wordsAcknowledged: acknowledgedWords[i])
    }

    /// Every register's status, in `fates` order.
    public func statuses(dryRun: Bool = false) -> [RegisterStatus] { ids.indices.map { status(at: $0, dryRun: dryRun) } }

    /// Indices (in `fates`) of the registers a frame that may have stored some of their words was sent for.
    public var touchedIndices: [Int] { ids.indices.filter { touched($0) } }

    /// The last register (page order) whose whole write the device acknowledged.
    public var lastConfirmed: String? {
        ids.indices.last { acknowledgedWords[$0] >= lengths[$0] }.map { ids[$0] }
    }

    /// The first register whose write was sent and never answered.
    public var firstInDoubt: String? { firstInDoubt(statuses()) }

    /// `firstInDoubt` from the statuses already computed (`statuses()`).
    public func firstInDoubt(_ statuses: [RegisterStatus]) -> String? {
        statuses.firstIndex(of: .inDoubt).map { ids[$0] }
    }

    /// Registers verified, then changed in the final pass.
    public var changedLater: [String] { changedLater(statuses()) }

    /// `changedLater` from the statuses already computed (`statuses()`).
    public func changedLater(_ statuses: [RegisterStatus]) -> [String] {
        statuses.indices.filter { statuses[$0] == .changedLater }.map { ids[$0] }
    }

    /// The report's line for a register; `decode` turns words into a value.
    public func result(_ f: Fate, dryRun: Bool = false, decode: ([UInt16]) -> RegisterValue) -> RegisterResult {
        result(of: f, dryRun: dryRun, decodeWords: { decode(Array($0)) })
    }

    /// The report's line for a register; `decodeWords` turns words (read in place from the hex) into a value.
    public func result(of f: Fate, dryRun: Bool = false, decodeWords: (UnsafeBufferPointer<UInt16>) -> RegisterValue)
        -> RegisterResult
    {
        let facts = Self.facts(f, dryRun: dryRun)
        let status = Self.status(facts)
        let seen: JournalCheck? =
            dryRun
            ? f.beforeData.map { JournalCheck(registerId: f.registerId, data: $0) }
            : (status == .changedLater ? f.finalCheck : (f.check ?? f.finalCheck))
        let actual = seen?.data.flatMap { ValueHex.withWords(hex: $0, decodeWords) }
        return RegisterResult(
            registerId: f.registerId, address: f.address, length: f.length, status: status, expected: f.expected,
            expectedData: f.expectedData, actual: actual, actualData: seen?.data, before: f.before, beforeUnset: nil,
            exceptionCode: status == .rejected ? f.exceptionCode : nil,
            message: Self.message(
                status, facts, answerMessage: f.message, checkMessage: f.check?.message,
                finalIsExpected: f.finalCheck?.data == f.expectedData))
    }

    /// A report line's message.
    private static func message(
        _ status: RegisterStatus, _ f: Facts, answerMessage: String?, checkMessage: @autoclosure () -> String?,
        finalIsExpected: @autoclosure () -> Bool
    ) -> String? {
        switch status {
        case .unverified where !f.checkHasData:
            return "acknowledged, not read back" + (checkMessage().map { ": \($0)" } ?? "")
        case .inDoubt:
            return "sent, no answer: may have been written" + (answerMessage.map { " (\($0))" } ?? "")
        case .changedLater:
            return "verified, then changed by a later write (final pass)"
        case .mismatch where f.checkHasData && finalIsExpected():
            return "read back different at first, equal in the final pass"
        default:
            return answerMessage
        }
    }

    /// Which column a report line's "actual" comes from.
    private enum Seen { case none, before, check, finalCheck }

    private func seen(_ i: Int, status: RegisterStatus, dryRun: Bool) -> Seen {
        if dryRun { return beforeData.hasData(i) ? .before : .none }
        if status == .changedLater { return finalChecks.isPresent(i) ? .finalCheck : .none }
        if checks.isPresent(i) { return .check }
        return finalChecks.isPresent(i) ? .finalCheck : .none
    }

    private func column(_ s: Seen) -> HexColumn? {
        switch s {
        case .none: return nil
        case .before: return beforeData
        case .check: return checks
        case .finalCheck: return finalChecks
        }
    }

    /// Register `i`'s report line (without `beforeUnset`).
    private func line(_ i: Int, dryRun: Bool, decodeWords: (UnsafeBufferPointer<UInt16>) -> RegisterValue) -> (
        RegisterResult, Seen
    ) {
        let facts = facts(i, dryRun: dryRun)
        let status = Self.status(facts)
        let seen = seen(i, status: status, dryRun: dryRun)
        var actual: RegisterValue?
        var actualData: String?
        // A read-back equal to the expected words has the expected hex: no string made.
        switch seen {
        case .none: break
        case .before:
            actual = beforeData.withWords(i, decodeWords)
            actualData = facts.beforeIsExpected ? expectedTexts[i] : beforeData.hex(i)
        case .check:
            actual = checks.withWords(i, decodeWords)
            actualData = checkMatches[i] ? expectedTexts[i] : checks.hex(i)
        case .finalCheck:
            actual = finalChecks.withWords(i, decodeWords)
            actualData = finalMatches[i] ? expectedTexts[i] : finalChecks.hex(i)
        }
        let answerMessage = messages.isEmpty ? nil : messages[i]
        let message = Self.message(
            status, facts, answerMessage: answerMessage, checkMessage: checks.message(i),
            finalIsExpected: finalMatches[i])
        let result = RegisterResult(
            registerId: ids[i], address: addresses[i], length: lengths[i], status: status, expected: expectedValues[i],
            expectedData: expectedTexts[i], actual: actual, actualData: actualData, before: beforeValues[i],
            beforeUnset: nil, exceptionCode: status == .rejected ? exceptionCodes[i] : nil, message: message)
        return (result, seen)
    }

    /// Every register's report line, in `fates` order: `decodeWords(i, words)` decodes register i's words,
    /// `beforeUnset(i, words)` (when given) says whether its "before" words are the "not set" value.
    /// Read from the columns: no fate made, no hex parsed.
    public func results(
        dryRun: Bool = false, decodeWords: (Int, UnsafeBufferPointer<UInt16>) -> RegisterValue,
        beforeUnset: ((Int, UnsafeBufferPointer<UInt16>) -> Bool)? = nil
    ) -> [RegisterResult] {
        ids.indices.map { i in
            var (line, _) = line(i, dryRun: dryRun) { decodeWords(i, $0) }
            line.origin = origin(at: i)
            if let beforeUnset {
                line.beforeUnset = beforeData.withWords(i) { beforeUnset(i, $0) }
            }
            return line
        }
    }

    /// The rollback's lines (every touched register), when a rollback ran; `unset(id, words)` (when
    /// given) says whether words are the register's "not set" value (the line then says so of its
    /// `before`, `expected` — the value restored — and `actual`).
    public func rollbackResults(
        decode: (String, [UInt16]) -> RegisterValue, unset: ((String, [UInt16]) -> Bool)? = nil
    ) -> RollbackResult? {
        guard rolledBack else { return nil }
        var lines: [RegisterResult] = []
        for i in touchedIndices {
            let f = fate(at: i)
            let want = f.beforeData ?? ""
            let got = f.restoreCheck?.data
            let gotWords = got.flatMap { [UInt16](valueDataHex: $0) }
            var status: RegisterStatus = .verified
            var message: String?
            switch f.restoreAnswer {
            case .rejected?: (status, message) = (.rejected, "restore refused: \(f.restoreMessage ?? "")")
            case .notSent?: (status, message) = (.failed, "restore not sent: \(f.restoreMessage ?? "")")
            case .noAnswer?: (status, message) = (.inDoubt, "restore sent, no answer: \(f.restoreMessage ?? "")")
            case nil where f.beforeData == nil: (status, message) = (.failed, "no snapshot value to restore")
            default:
                if got == nil {
                    (status, message) = (
                        .unverified, "restore read-back failed" + (f.restoreCheck?.message.map { ": \($0)" } ?? "")
                    )
                } else if got != want {
                    (status, message) = (.mismatch, "restored value did not verify")
                }
            }
            let before = f.before ?? .bytes([UInt8](hexString: want) ?? [])
            var line = RegisterResult(
                registerId: f.registerId, address: f.address, length: f.length, status: status, expected: before,
                expectedData: want, actual: gotWords.map { decode(f.registerId, $0) }, actualData: got, before: f.before,
                exceptionCode: nil, message: message)
            if let unset {
                let wantUnset = [UInt16](valueDataHex: want).map { unset(f.registerId, $0) }
                line.beforeUnset = f.before == nil ? nil : wantUnset
                line.expectedUnset = wantUnset
                line.actualUnset = gotWords.map { unset(f.registerId, $0) }
            }
            lines.append(line)
        }
        return RollbackResult(restored: lines.allSatisfy { $0.status == .verified }, registers: lines)
    }

    /// The audit record's registers: what was written, read back, restored and verified. `report`: the report's
    /// lines and rollback already made from this ledger (`results`, `rollbackResults`, the same `dryRun`), whose
    /// statuses, messages and values are taken as they are instead of being derived and decoded again.
    public func auditRegisters(
        dryRun: Bool = false, report: (lines: [RegisterResult], rollback: RollbackResult?)? = nil,
        decode: (String, [UInt16]) -> RegisterValue
    ) -> [AuditRegister] {
        let reported = report.flatMap { $0.lines.count == ids.count ? $0 : nil }
        let rollback = reported.map(\.rollback) ?? rollbackResults(decode: decode)
        let restored =
            rollback.map { Dictionary($0.registers.map { ($0.registerId, $0) }, uniquingKeysWith: { a, _ in a }) } ?? [:]
        // A value the report line decoded already (the same words) is not decoded again.
        return ids.indices.map { i in
            let id = ids[i]
            let (line, seen) =
                reported.map { r in (r.lines[i], self.seen(i, status: r.lines[i].status, dryRun: dryRun)) }
                ?? line(i, dryRun: dryRun) { decode(id, Array($0)) }
            func value(_ column: HexColumn, _ which: Seen) -> RegisterValue? {
                guard column.hasData(i) else { return nil }
                if !dryRun && (which == seen || self.column(seen)?.dataEquals(i, column, i) == true) { return line.actual }
                return column.withWords(i) { decode(id, Array($0)) }
            }
            var reg = AuditRegister(
                registerId: id, before: beforeValues[i], after: line.actual, status: AuditRegisterStatus(line.status),
                written: sent[i] ? expectedValues[i] : nil, readBack: value(checks, .check), message: line.message)
            reg.origin = origin(at: i)
            if dryRun { reg.after = beforeValues[i] }
            if let final = value(finalChecks, .finalCheck) { reg.after = final }
            if let r = restored[id] {
                reg.rollback = AuditRollback(
                    restored: r.expected, readBack: r.actual, status: r.status)
                // After a rollback the machine holds what the rollback read back (or nothing is known).
                reg.after = r.actual
            }
            return reg
        }
    }
}
