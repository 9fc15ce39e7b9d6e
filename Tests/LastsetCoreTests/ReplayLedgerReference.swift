import Foundation

@testable import LastsetCore

/// The ledger as it was before its columns (a struct of strings per register), kept here as the
/// reference the columns must agree with.
struct ReferenceLedger: Sendable {
    typealias Fate = ReplayLedger.Fate
    /// The intent (nil until journaled: a replay refused or dry-run before any write has none).
    private(set) var intent: ReplayIntent?
    /// Registers in page order.
    private(set) var fates: [Fate] = []
    private var position: [String: Int] = [:]
    /// Where the next lookup probably lands: events name registers in page order, so most lookups are
    /// one string comparison, not a hash. Not used when an id repeats (the index keeps the first).
    private var cursor = 0
    private var idsUnique = true
    /// Every event, in order.
    private(set) var events: [ReplayEvent] = []
    /// Write frames sent (retries included), register writes, steps and restores.
    private(set) var writeFrames = 0
    /// Registers with every word acknowledged (kept as events arrive: progress asks once a window).
    private(set) var acknowledgedRegisters = 0
    /// The end event's status, when the replay ended.
    private(set) var ended: ReplayStatus?
    /// A rollback started.
    private(set) var rolledBack = false

    /// An empty ledger.
    init() {}

    /// A ledger folded from journaled events (e.g. read back after a crash).
    init(events: [ReplayEvent]) {
        for e in events { record(e) }
    }

    /// The registers of a replay before its intent is journaled (dry run, refusals, the snapshot).
    mutating func register(_ registers: [IntentRegister]) {
        // The same registers again (the snapshot's "before", then the intent): the index stays.
        // Fields read in place (iterating the arrays would copy every register and fate).
        registers.withUnsafeBufferPointer { rs in
            let sameIds =
                rs.count == fates.count
                && fates.withUnsafeBufferPointer { fs in rs.indices.allSatisfy { rs[$0].registerId == fs[$0].registerId } }
            if sameIds {
                // Rewritten in place: each fate as new (what `Fate(…)` gives), without building a second
                // array of thousands of fates and destroying the first.
                fates.withUnsafeMutableBufferPointer { fs in
                    for i in rs.indices {
                        fs[i].address = rs[i].address
                        fs[i].length = rs[i].length
                        fs[i].expected = rs[i].expected
                        fs[i].expectedData = rs[i].expectedData
                        fs[i].before = rs[i].before
                        fs[i].beforeData = rs[i].beforeData
                        fs[i].sent = false
                        fs[i].wordsAcknowledged = 0
                        fs[i].answer = nil
                        fs[i].exceptionCode = nil
                        fs[i].message = nil
                        fs[i].check = nil
                        fs[i].finalCheck = nil
                        fs[i].restoreAnswer = nil
                        fs[i].restoreMessage = nil
                        fs[i].restoreCheck = nil
                    }
                }
            } else {
                fates = rs.indices.map { i in
                    Fate(
                        registerId: rs[i].registerId, address: rs[i].address, length: rs[i].length,
                        expected: rs[i].expected, expectedData: rs[i].expectedData, before: rs[i].before,
                        beforeData: rs[i].beforeData)
                }
                // Backwards, so a repeated id keeps its first position.
                var index = [String: Int](minimumCapacity: rs.count)
                for i in rs.indices.reversed() { index[rs[i].registerId] = i }
                position = index
                idsUnique = index.count == rs.count
            }
        }
        cursor = 0
        acknowledgedRegisters = 0
    }

    /// The fate of a register.
    func fate(_ registerId: String) -> Fate? { index(of: registerId).map { fates[$0] } }

    /// The position of a register in `fates`.
    func index(of registerId: String) -> Int? {
        if idsUnique && cursor < fates.count && fates[cursor].registerId == registerId { return cursor }
        return position[registerId]
    }

    /// Applies one transition.
    mutating func record(_ event: ReplayEvent) {
        events.append(event)
        switch event.kind {
        case .intent:
            if let i = event.intent {
                intent = i
                register(i.registers)
            }
        case .step:
            writeFrames += event.frames ?? 0
        case .write:
            for id in event.request?.registerIds ?? [] { update(id) { $0.sent = true } }
        case .answer:
            writeFrames += event.frames ?? 0
            guard let request = event.request, let answer = event.answer else { return }
            var acknowledged = 0
            defer { acknowledgedRegisters += acknowledged }
            for id in request.registerIds {
                update(id) { f in
                    if answer != .notSent || (event.frames ?? 0) > 0 { f.sent = true }
                    if answer == .acknowledged {
                        // Words of this register inside the request.
                        let lo = max(f.address, request.address)
                        let hi = min(f.address + f.length, request.address + request.count)
                        let wasComplete = f.wordsAcknowledged >= f.length
                        f.wordsAcknowledged += max(0, hi - lo)
                        if !wasComplete && f.wordsAcknowledged >= f.length { acknowledged += 1 }
                        // An earlier word's doubt is settled only by a read-back, not by a later word;
                        // a refused request re-planned (FC06 fallback, shorter writes) is superseded.
                        if f.answer != .noAnswer {
                            f.answer = .acknowledged
                            f.exceptionCode = nil
                            f.message = nil
                        }
                    } else if f.answer != .noAnswer {
                        f.answer = answer
                        f.exceptionCode = event.exceptionCode
                        f.message = event.message
                    }
                }
            }
        case .replan:
            for id in event.request?.registerIds ?? [] {
                update(id) { f in
                    guard f.answer == .rejected else { return }
                    f.answer = f.wordsAcknowledged > 0 ? .acknowledged : nil
                    f.sent = f.wordsAcknowledged > 0
                    f.exceptionCode = nil
                    f.message = nil
                }
            }
        case .check:
            for c in event.checks ?? [] { update(c.registerId) { $0.check = c } }
        case .finalCheck:
            for c in event.checks ?? [] { update(c.registerId) { $0.finalCheck = c } }
        case .restore:
            rolledBack = true
            writeFrames += event.frames ?? 0
            for id in event.request?.registerIds ?? [] {
                update(id) { f in
                    // The worst answer of the register's restore requests wins.
                    if f.restoreAnswer == nil || f.restoreAnswer == .acknowledged {
                        f.restoreAnswer = event.answer
                        f.restoreMessage = event.message
                    }
                }
            }
        case .restoreCheck:
            rolledBack = true
            for c in event.checks ?? [] { update(c.registerId) { $0.restoreCheck = c } }
        case .end:
            ended = event.status
        }
    }

    private mutating func update(_ id: String, _ body: (inout Fate) -> Void) {
        guard let i = index(of: id) else { return }
        cursor = i + 1
        body(&fates[i])
    }

    // MARK: derived

    /// A register's status as the report gives it.
    func status(of f: Fate, dryRun: Bool = false) -> RegisterStatus {
        withUnsafePointer(to: f) { Self.status($0, dryRun: dryRun) }
    }

    /// True when a frame that may have stored some of the register's words was sent.
    func touched(_ f: Fate) -> Bool { withUnsafePointer(to: f) { Self.touched($0) } }

    // The loops over every fate read the fields they need in place (through a pointer): handing each
    // `Fate` to a function copies all of it (eight strings and values), thousands of times per pass.

    /// `fates[i]` in place, for each `i` (no copy of the fate).
    private func eachFate<T>(_ body: (Int, UnsafePointer<Fate>) -> T) -> [T] {
        fates.withUnsafeBufferPointer { fs in
            guard let base = fs.baseAddress else { return [] }
            return (0..<fs.count).map { body($0, base + $0) }
        }
    }

    /// Every register's status, in `fates` order.
    func statuses(dryRun: Bool = false) -> [RegisterStatus] { eachFate { Self.status($1, dryRun: dryRun) } }

    /// Indices (in `fates`) of the registers a frame that may have stored some of their words was sent for.
    var touchedIndices: [Int] { eachFate { Self.touched($1) ? $0 : nil }.compactMap { $0 } }

    private static func status(_ p: UnsafePointer<Fate>, dryRun: Bool) -> RegisterStatus {
        if dryRun {
            guard let before = p.pointee.beforeData else { return .notAttempted }
            return before == p.pointee.expectedData ? .unchanged : .differs
        }
        let answer = p.pointee.answer
        let sent = p.pointee.sent
        guard sent || answer != nil else { return .notAttempted }
        let readOK = p.pointee.check?.data == p.pointee.expectedData
        switch answer {
        case .rejected?:
            return .rejected
        case .notSent?:
            return p.pointee.wordsAcknowledged > 0 ? .unverified : .failed
        case .noAnswer?:
            // A read-back settles the doubt only when it shows the value.
            if readOK, p.pointee.finalCheck == nil || p.pointee.finalCheck?.data == p.pointee.expectedData { return .verified }
            return .inDoubt
        case .acknowledged?, nil:
            guard p.pointee.wordsAcknowledged >= p.pointee.length || answer == nil else { return .unverified }
            guard p.pointee.check != nil, p.pointee.check?.data != nil else {
                return sent && answer == nil ? .inDoubt : .unverified
            }
            guard readOK else { return .mismatch }
            if let data = p.pointee.finalCheck?.data, data != p.pointee.expectedData { return .changedLater }
            return .verified
        }
    }

    private static func touched(_ p: UnsafePointer<Fate>) -> Bool {
        let answer = p.pointee.answer
        return p.pointee.wordsAcknowledged > 0 || answer == .noAnswer || (p.pointee.sent && answer == nil)
    }

    /// The last register (page order) whose whole write the device acknowledged.
    var lastConfirmed: String? {
        eachFate { $1.pointee.wordsAcknowledged >= $1.pointee.length }.lastIndex(of: true).map { fates[$0].registerId }
    }

    /// The first register whose write was sent and never answered.
    var firstInDoubt: String? { firstInDoubt(statuses()) }

    /// `firstInDoubt` from the statuses already computed (`statuses()`).
    func firstInDoubt(_ statuses: [RegisterStatus]) -> String? {
        statuses.firstIndex(of: .inDoubt).map { fates[$0].registerId }
    }

    /// Registers verified, then changed in the final pass.
    var changedLater: [String] { changedLater(statuses()) }

    /// `changedLater` from the statuses already computed (`statuses()`).
    func changedLater(_ statuses: [RegisterStatus]) -> [String] {
        statuses.indices.filter { statuses[$0] == .changedLater }.map { fates[$0].registerId }
    }

    /// The report's line for a register; `decode` turns words into a value.
    func result(_ f: Fate, dryRun: Bool = false, decode: ([UInt16]) -> RegisterValue) -> RegisterResult {
        result(of: f, dryRun: dryRun, decodeWords: { decode(Array($0)) })
    }

    /// The report's line for a register; `decodeWords` turns words (read in place from the hex) into a value.
    func result(of f: Fate, dryRun: Bool = false, decodeWords: (UnsafeBufferPointer<UInt16>) -> RegisterValue)
        -> RegisterResult
    {
        withUnsafePointer(to: f) { Self.result($0, dryRun: dryRun, decodeWords: decodeWords) }
    }

    /// Every register's report line, in `fates` order: `decodeWords(i, words)` decodes fate i's words,
    /// `beforeUnset(i, words)` (when given) says whether its "before" words are the "not set" value.
    /// Read in place: no fate is copied, no word array made.
    func results(
        dryRun: Bool = false, decodeWords: (Int, UnsafeBufferPointer<UInt16>) -> RegisterValue,
        beforeUnset: ((Int, UnsafeBufferPointer<UInt16>) -> Bool)? = nil
    ) -> [RegisterResult] {
        eachFate { i, p in
            var line = Self.result(p, dryRun: dryRun) { decodeWords(i, $0) }
            if let beforeUnset {
                line.beforeUnset = p.pointee.beforeData.flatMap { ValueHex.withWords(hex: $0) { beforeUnset(i, $0) } }
            }
            return line
        }
    }

    private static func result(
        _ p: UnsafePointer<Fate>, dryRun: Bool, decodeWords: (UnsafeBufferPointer<UInt16>) -> RegisterValue
    ) -> RegisterResult {
        let status = status(p, dryRun: dryRun)
        let seen: JournalCheck? =
            dryRun
            ? p.pointee.beforeData.map { JournalCheck(registerId: p.pointee.registerId, data: $0) }
            : (status == .changedLater ? p.pointee.finalCheck : (p.pointee.check ?? p.pointee.finalCheck))
        let actual = seen?.data.flatMap { ValueHex.withWords(hex: $0, decodeWords) }
        var message = p.pointee.message
        switch status {
        case .unverified where p.pointee.check?.data == nil:
            message = "acknowledged, not read back" + (p.pointee.check?.message.map { ": \($0)" } ?? "")
        case .inDoubt:
            message = "sent, no answer: may have been written" + (p.pointee.message.map { " (\($0))" } ?? "")
        case .changedLater:
            message = "verified, then changed by a later write (final pass)"
        case .mismatch where p.pointee.check?.data != nil && p.pointee.finalCheck?.data == p.pointee.expectedData:
            message = "read back different at first, equal in the final pass"
        default: break
        }
        return RegisterResult(
            registerId: p.pointee.registerId, address: p.pointee.address, length: p.pointee.length, status: status,
            expected: p.pointee.expected, expectedData: p.pointee.expectedData, actual: actual, actualData: seen?.data,
            before: p.pointee.before, beforeUnset: nil,
            exceptionCode: status == .rejected ? p.pointee.exceptionCode : nil, message: message)
    }

    /// The rollback's lines (every touched register), when a rollback ran.
    func rollbackResults(decode: (String, [UInt16]) -> RegisterValue) -> RollbackResult? {
        guard rolledBack else { return nil }
        var lines: [RegisterResult] = []
        for f in fates where touched(f) {
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
            lines.append(
                RegisterResult(
                    registerId: f.registerId, address: f.address, length: f.length, status: status, expected: before,
                    expectedData: want, actual: gotWords.map { decode(f.registerId, $0) }, actualData: got, before: f.before,
                    exceptionCode: nil, message: message))
        }
        return RollbackResult(restored: lines.allSatisfy { $0.status == .verified }, registers: lines)
    }

    /// The audit record's registers: what was written, read back, restored and verified.
    func auditRegisters(dryRun: Bool = false, decode: (String, [UInt16]) -> RegisterValue) -> [AuditRegister] {
        let rollback = rollbackResults(decode: decode)
        let restored =
            rollback.map { Dictionary($0.registers.map { ($0.registerId, $0) }, uniquingKeysWith: { a, _ in a }) } ?? [:]
        // Read in place (no fate copied); a value the report line decoded already (the same hex) is
        // not decoded again.
        return eachFate { _, p in
            let id = p.pointee.registerId
            let line = Self.result(p, dryRun: dryRun) { decode(id, Array($0)) }
            func value(_ data: String?) -> RegisterValue? {
                guard let data else { return nil }
                if !dryRun && data == line.actualData { return line.actual }
                return [UInt16](valueDataHex: data).map { decode(id, $0) }
            }
            var reg = AuditRegister(
                registerId: id, before: p.pointee.before, after: line.actual, status: AuditRegisterStatus(line.status),
                written: p.pointee.sent ? p.pointee.expected : nil, readBack: value(p.pointee.check?.data),
                message: line.message)
            if dryRun { reg.after = p.pointee.before }
            if let final = value(p.pointee.finalCheck?.data) { reg.after = final }
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
