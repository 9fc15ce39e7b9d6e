/// What a job's report tells of whether its device answered: the device's health (`DeviceStatus.reachable`,
/// `lastError`) follows it. Decided from the report's causes, never from the wording of a message.
public enum DeviceContact: Sendable, Hashable {
    /// The device answered the job's requests.
    case answered
    /// The device failed to answer: the first register it failed on, as the health's `lastError`.
    case lost(String)
    /// The job sent nothing (a refused or dry-run-only replay that never reached the device): health unchanged.
    case none

    /// A capture: lost when a register or the identity could not be read; a value breaking a rule was still an
    /// answer.
    public init(capture report: CaptureReport) {
        if let lost = report.problems.first(where: { $0.cause != .invalidValue }) {
            self = .lost(lost.description)
        } else {
            self = .answered
        }
    }

    /// A replay: lost when a register failed (without an exception code: the device did not answer); answered
    /// when it sent requests; otherwise nothing is known.
    public init(replay report: ReplayReport) {
        if let lost = report.registers.first(where: { $0.status == .failed }) {
            self = .lost("\(lost.registerId): \(lost.message ?? "failed")")
        } else if report.requests > 0 {
            self = .answered
        } else {
            self = .none
        }
    }
}
