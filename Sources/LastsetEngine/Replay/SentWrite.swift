import LastsetCore
import ModbusLink

/// One write request sent on a device connection — a register write of a window, a `beforeWrite` /
/// `afterWrite` step, a rollback's restore: the error its call threw and the frames it took.
struct SentWrite: Sendable {
    /// What the call threw; nil when the device acknowledged the write.
    var error: ModbusError?
    /// The frames the call sent (retries included) and how many went unanswered.
    var frames: CallFrames

    /// Sends `request` as planned (FC16, or FC06 of its one word) to `unit`, inside the connection's batch.
    static func send(
        _ request: WriteRequest, unit: Int, options: LinkOptions, on connection: isolated ModbusConnection
    ) -> SentWrite {
        do throws(ModbusError) {
            switch request.function {
            case .fc16: try connection.writeRegisters(unit: unit, address: request.address, values: request.words, options: options)
            case .fc06: try connection.writeRegister(unit: unit, address: request.address, value: request.words[0], options: options)
            }
            return SentWrite(error: nil, frames: connection.lastCall)
        } catch {
            return SentWrite(error: error, frames: connection.lastCall)
        }
    }

    /// How the write ended (`WriteAnswer.of`: the one classification).
    var answer: WriteAnswer {
        WriteAnswer.of(failed: error != nil, exception: error?.exceptionCode != nil, unansweredFrames: frames.unanswered)
    }

    /// The journal's event of its answer: `kind` `.answer`, `.step` or `.restore`.
    func event(_ kind: ReplayEvent.Kind, request: PlannedRequest, phase: StepPhase? = nil) -> ReplayEvent {
        ReplayEvent(
            kind, request: request, answer: answer, frames: frames.sent, exceptionCode: error?.exceptionCode.map(Int.init),
            message: error?.description, phase: phase)
    }
}
