import LastsetCore
import ModbusLink

/// The `beforeWrite` / `afterWrite` steps: FC06 each, journaled before its frame, answered, read back.
extension Replay {
    /// What one step did on the connection.
    struct SentStep: Sendable {
        /// The journal's event of its answer.
        var event: ReplayEvent
        /// What its write threw; nil when acknowledged.
        var error: ModbusError?
        /// False when the answer could not be journaled.
        var journaled: Bool
        /// The word read back right after an acknowledged write (nil when not read).
        var readBack: UInt16?
        /// Why the read-back failed.
        var readError: ModbusError?
        /// Frames the read-back sent.
        var readFrames = 0
    }

    /// Sends `steps` (FC06 each), each journaled before its frame and its answer journaled as soon as it
    /// comes — before the read-back — so a replay killed after an unlock was answered says so. The first that
    /// fails stops the rest (not attempted).
    mutating func runSteps(_ steps: [WriteStep], phase: StepPhase) async -> Bool {
        var failedAt: Int?
        var results: [StepResult] = []
        for (i, step) in steps.enumerated() {
            if failedAt != nil {
                results.append(StepResult(address: step.address, value: step.value, status: .notAttempted))
                continue
            }
            let request = PlannedRequest(function: .fc06, address: step.address, count: 1, registerIds: [])
            let intent = ReplayEvent(.write, request: request, phase: phase)
            let sent = await sendStep(step, request: request, intent: intent, phase: phase)
            ledger.record(intent)
            guard let sent else {
                failedAt = i
                results.append(
                    StepResult(address: step.address, value: step.value, status: .notAttempted, message: "journal not writable"))
                report.stoppedAt = "\(phase.rawValue)[\(i)]"
                report.reason = "the journal could not be written: nothing further sent"
                journalBroken = true
                continue
            }
            readFrames += sent.readFrames
            record(sent.event, journaled: true)
            if !sent.journaled { journalBroken = true }
            if let error = sent.error {
                failedAt = i
                results.append(
                    StepResult(
                        address: step.address, value: step.value, status: sent.event.answer == .noAnswer ? .inDoubt : .failed,
                        message: error.description))
                report.stoppedAt = "\(phase.rawValue)[\(i)]"
                report.reason = "\(phase.rawValue)[\(i)] (write \(step.value) to \(step.address)) failed: \(error)"
                continue
            }
            results.append(acknowledged(step, sent, label: "\(phase.rawValue)[\(i)]"))
        }
        if phase == .beforeWrite { report.beforeWrite = results } else { report.afterWrite = results }
        return failedAt == nil
    }

    /// Sends one step in one hop onto the connection's executor: its intent journaled right before its frame, its
    /// answer journaled as soon as it comes, then the register read back. Nil when the intent could not be
    /// journaled (nothing sent).
    private func sendStep(
        _ step: WriteStep, request: PlannedRequest, intent: ReplayEvent, phase: StepPhase
    ) async -> SentStep? {
        let unit = target.unit
        let link = target.linkOptions
        let sink = journaling ? self.sink : nil
        let write = WriteRequest(
            function: .fc06, address: step.address, words: [UInt16(truncatingIfNeeded: step.value)], registerIds: [])
        return await target.connection.batch { c -> SentStep? in
            guard sink?.record(intent, true) ?? true else { return nil }
            let sent = SentWrite.send(write, unit: unit, options: link, on: c)
            let event = sent.event(.step, request: request, phase: phase)
            // Journaled here, before the read-back: the answer is a fact about the machine already.
            let journaled = sink?.record(event, false) ?? true
            guard sent.error == nil else { return SentStep(event: event, error: sent.error, journaled: journaled) }
            // Read back like every other write. Unlock and commit registers are often commands that
            // clear themselves, so a different value is reported, not treated as a failure.
            do throws(ModbusError) {
                let words = try c.readHoldingRegisters(unit: unit, address: step.address, count: 1, options: link)
                return SentStep(event: event, journaled: journaled, readBack: words[0], readFrames: c.lastCall.sent)
            } catch {
                return SentStep(event: event, journaled: journaled, readError: error, readFrames: c.lastCall.sent)
            }
        }
    }

    /// The result of an acknowledged step; a read-back that differs or failed is a warning.
    private mutating func acknowledged(_ step: WriteStep, _ sent: SentStep, label: String) -> StepResult {
        var result = StepResult(address: step.address, value: step.value, status: .ok)
        if let readBack = sent.readBack {
            result.readBack = Int(readBack)
            if result.readBack != step.value {
                result.message = "reads back \(readBack) (a command register that clears itself?)"
                report.warnings.append("\(label): wrote \(step.value) to \(step.address), reads back \(readBack)")
            }
        } else if let readError = sent.readError {
            result.message = "written; read-back failed: \(readError)"
            report.warnings.append("\(label): read-back of \(step.address) failed: \(readError)")
        }
        return result
    }
}
