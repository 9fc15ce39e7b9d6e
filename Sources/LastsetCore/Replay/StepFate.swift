/// One `beforeWrite` / `afterWrite` step of a replay, as its journal tells it: listed by the intent,
/// journaled as about to be sent, answered (issue 19, defect 13).
public struct StepFate: Sendable, Hashable {
    public var phase: StepPhase
    /// Its position in its phase (`beforeWrite[0]`).
    public var index: Int
    public var address: Int
    /// The word it writes; nil for a step the intent did not list (a journal written before intents
    /// listed their steps).
    public var value: Int?
    /// Journaled as about to be sent: its frame may have gone out.
    public var sent = false
    /// How its write ended; nil when no answer was recorded.
    public var answer: WriteAnswer?
    public var exceptionCode: Int?
    public var message: String?

    /// A step not yet sent.
    public init(phase: StepPhase, index: Int, address: Int, value: Int?) {
        self.phase = phase
        self.index = index
        self.address = address
        self.value = value
    }

    /// How the step ended, as a report or an audit record says it.
    public var status: StepStatus {
        switch answer {
        case .acknowledged?: return .ok
        case .rejected?, .notSent?: return .failed
        case .noAnswer?: return .inDoubt
        case nil: return sent ? .inDoubt : .notAttempted
        }
    }

    /// True when the device may have executed it (acknowledged, or sent without an answer).
    public var mayHaveRun: Bool { status == .ok || status == .inDoubt }

    /// `beforeWrite[0] 1536 := 6868 acknowledged`, `… sent, no answer`, `… refused (exception 04)`, `… not sent`.
    public var description: String {
        let what = "\(phase.rawValue)[\(index)] \(address)" + (value.map { " := \($0)" } ?? "")
        let how: String
        switch answer {
        case .acknowledged?: how = "acknowledged"
        case .rejected?: how = "refused" + (exceptionCode.map { " (exception " + ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) + ")" } ?? "")
        case .notSent?: how = "could not be sent"
        case .noAnswer?: how = "sent, no answer"
        case nil: how = sent ? "sent, no answer" : "not sent"
        }
        return "\(what) \(how)"
    }

    /// The report / audit form (nil when the value is not known).
    public var result: StepResult? {
        value.map { StepResult(address: address, value: $0, status: status, message: message) }
    }
}
