import LastsetCore
import ModbusLink

/// The writes, window by window: what each window's read-backs say, and what follows it.
extension Replay {
    /// Writes in page order, window by window (`ReplayPlan.windows`): a window's writes, then the reads
    /// of the read plan that no later write touches, in one hop onto the connection's executor. A
    /// register is checked once every read covering it was sent after its last write (`ReadBackReadiness`);
    /// what follows a window is `AfterWindow.decide`'s. Returns true when shutdown stopped it.
    mutating func writeWindows() async -> Bool {
        guard var plan else { return false }
        let total = entries.count
        progress?(JobProgress(phase: .writing, done: 0, total: total))
        latest = PageReadout(
            covering: (plan.reads.map(\.address).min() ?? 0)..<(plan.reads.map(\.end).max() ?? 0))
        var windows = plan.windows()
        // The entries' spans, once (re-planning changes the writes, not the entries).
        let spans = plan.entries.map { AddressSpan(address: $0.address, length: $0.words.count) }
        var readiness = ReadBackReadiness(plan)
        var w = 0
        var acked = 0
        defer { self.plan = plan }
        while w < windows.count {
            let window = windows[w]
            let outcome = await sendWindow(window, plan: plan, spans: spans, acked: acked, total: total)
            for e in outcome.events { record(e, journaled: true) }
            readFrames += outcome.readout.requests
            for r in outcome.readsSent {
                let read = plan.reads[r]
                latest.forget(read.address, read.end)
                latest.merge(outcome.readout, read.address, read.end)
            }
            let ready = readiness.record(
                window, in: plan, sentBefore: outcome.next, unanswered: outcome.unanswered, readsSent: outcome.readsSent)
            let (checked, unreadCause) = check(ready, plan: plan, spans: spans, readout: outcome.readout)
            var findings = checked
            acked = ledger.acknowledgedRegisters
            progress?(JobProgress(phase: .writing, done: acked, total: total))
            findings.journalFailed = outcome.journalFailed
            findings.cancelled = outcome.cancelled
            findings.failedWrite = outcome.failure.map { failedWrite($0.index, $0.error, plan: plan, spans: spans) }
            switch AfterWindow.decide(findings, policy: policy) {
            case .nextWindow:
                w += 1
            case .skipFailedWrite(let k):
                windows = plan.windows(from: k + 1, pending: readiness.openReads.sorted())
                w = 0
            case .replan(let k, let refusal):
                replan(&plan, at: k, after: refusal)
                windows = plan.windows(from: k, pending: readiness.openReads.sorted())
                w = 0
            case .stop(let stop):
                return reportStop(stop, plan: plan, outcome: outcome, unreadCause: unreadCause)
            }
        }
        return false
    }

    /// Records the read-backs of the registers `ready` (entry i is register i of the ledger: recorded from the
    /// words, the hex made only for the journal's line, then compared with its expected words) and journals
    /// them. Returns what they found — the first acknowledged register read back different, the first whose
    /// read-back failed — and why that one could not be read.
    private mutating func check(_ ready: [Int], plan: ReplayPlan, spans: [AddressSpan], readout: PageReadout)
        -> (WindowFindings, unreadCause: String?)
    {
        let journals = journaling
        var checks: [JournalCheck] = []
        var findings = WindowFindings()
        var unreadCause: String?
        for i in ready {
            let s = spans[i]
            let read = latest.withWords(for: s) { ledger.recordCheck(at: i, words: $0) } != nil
            if read {
                if journals { checks.append(JournalCheck(registerId: plan.entries[i].registerId, data: latest.hex(for: s))) }
                if findings.mismatch == nil && ledger.checkDiffers(at: i) && ledger.answer(at: i) == .acknowledged {
                    findings.mismatch = i
                }
            } else {
                let cause = readout.failure(for: s).map(String.init(describing:)) ?? "not read"
                ledger.recordCheck(at: i, words: nil, message: cause)
                if journals { checks.append(JournalCheck(registerId: plan.entries[i].registerId, data: nil, message: cause)) }
                if findings.unreadable == nil {
                    findings.unreadable = i
                    unreadCause = cause
                }
            }
        }
        if !checks.isEmpty { journal(ReplayEvent(.check, checks: checks)) }
        return (findings, unreadCause)
    }

    /// The write `k` that failed with `error`, and what its exception answer means (`WriteRefusal.decide`).
    private func failedWrite(_ k: Int, _ error: ModbusError, plan: ReplayPlan, spans: [AddressSpan])
        -> WindowFindings.FailedWrite
    {
        let request = plan.writes[k]
        let refusal = error.exceptionCode.map {
            WriteRefusal.decide(
                function: request.function, exceptionCode: $0, wordCount: request.words.count,
                registerLengths: plan.entryIndices(request).map { spans[$0].length },
                writeFunction: plan.writeLimits.writeFunction, fellBackToFC06: report.fellBackToFC06)
        }
        return WindowFindings.FailedWrite(write: k, refusal: refusal)
    }

    /// Re-plans the writes from `k` on after the device refused it (`ReplayPlan.replan(at:after:)`), says so in
    /// the report and journals the re-plan.
    private mutating func replan(_ plan: inout ReplayPlan, at k: Int, after refusal: WriteRefusal) {
        let request = plan.writes[k]
        switch refusal {
        case .fallBackToFC06:
            // The device does not implement FC16: go on with FC06 from this request on.
            report.fellBackToFC06 = true
            report.warnings.append("device refused FC16 (exception 01); fell back to FC06")
        case .shorten(let limit):
            // A merged write refused (illegal data value): perhaps too long, perhaps one value. Its registers
            // again in shorter writes of their own (inside its window), whole; the limit is learned for the
            // device only if they are all then acknowledged (`WriteLimitEvidence`).
            writeEvidence.tried(limit, for: plan.entryIndices(request))
            report.warnings.append(
                "device refused a \(request.words.count)-register write of \(request.registerIds.count) registers (exception 03); writes of at most \(limit) from \(request.registerIds.first ?? "?") on"
            )
        case .rejected:
            return
        }
        plan.replan(at: k, after: refusal)
        let limits = plan.writeLimits
        record(
            ReplayEvent(
                .replan, request: PlannedRequest(request), requests: plan.writes[k...].map(PlannedRequest.init),
                message: limits.writeFunction == .fc06 ? "FC06 fallback" : "max \(limits.maxWriteRegisters) per write"))
    }

    /// Says in the report where and why the writes stopped; true when shutdown stopped them.
    private mutating func reportStop(
        _ stop: AfterWindow.Stop, plan: ReplayPlan, outcome: WindowOutcome, unreadCause: String?
    ) -> Bool {
        switch stop {
        case .mismatch(let m):
            report.stoppedAt = "after a mismatch at \(plan.entries[m].registerId)"
            report.reason = "read-back differs from the template"
        case .unreadable(let u):
            report.stoppedAt = "after writing \(plan.entries[u].registerId): read-back failed"
            report.reason = "read-back failed: \(unreadCause ?? "not read")"
        case .journalBroken:
            report.stoppedAt = "before \(plan.writes[outcome.next].registerIds.first ?? "?"): journal not writable"
            report.reason = "the journal could not be written: nothing further sent"
        case .shutdown:
            let next = outcome.next < plan.writes.count ? plan.writes[outcome.next].registerIds.first ?? "?" : "the end"
            report.stoppedAt = "shutdown before \(next)"
            report.reason = "stopped by shutdown at a clean point"
            return true
        case .failedWrite(let k):
            let request = plan.writes[k]
            let error = outcome.failure.map { String(describing: $0.error) } ?? "?"
            report.stoppedAt =
                "at \(request.registerIds.first ?? "?") (\(request.function.rawValue) \(request.address)+\(request.words.count))"
            report.reason =
                outcome.failure?.error.exceptionCode == 0x03
                ? "write rejected: the device refused the value (illegal data value): \(error)"
                : "write failed: \(error)"
        }
        return false
    }
}
