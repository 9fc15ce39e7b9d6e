import Foundation
import LastsetFormats

/// One transition of a replay's state machine. The replay's report, its audit record and — after a
/// crash — the "interrupted" record are all derived from the sequence of these (`ReplayLedger`).
public struct ReplayEvent: Sendable, Hashable {
    /// Which transition.
    public enum Kind: String, JSONFieldValue, Sendable, Hashable {
        /// The intent, before the first write frame.
        case intent
        /// A beforeWrite / afterWrite step was sent and answered (`request`, `answer`, `phase`).
        case step
        /// A write request is about to be sent (`request`).
        case write
        /// The write request's outcome (`request`, `answer`, `frames`, `exceptionCode`, `message`).
        case answer
        /// The remaining writes were re-planned (`message`: why; `request`: the refused request it
        /// supersedes; `requests`: the new remainder).
        case replan
        /// A verification window was read back (`checks`).
        case check
        /// The final verification pass (`checks`).
        case finalCheck
        /// A rollback restore request was sent and answered (`request`, `answer`, `message`).
        case restore
        /// The rollback's read-back (`checks`).
        case restoreCheck
        /// The replay ended (`status`, `message`).
        case end
    }

    public var kind: Kind
    public var intent: ReplayIntent?
    public var request: PlannedRequest?
    public var requests: [PlannedRequest]?
    public var answer: WriteAnswer?
    /// Frames sent for this request (retries included).
    public var frames: Int?
    public var exceptionCode: Int?
    public var message: String?
    public var checks: [JournalCheck]?
    public var status: ReplayStatus?
    /// beforeWrite / afterWrite, for steps.
    public var phase: StepPhase?

    /// An event from its parts.
    public init(
        _ kind: Kind, intent: ReplayIntent? = nil, request: PlannedRequest? = nil, requests: [PlannedRequest]? = nil,
        answer: WriteAnswer? = nil, frames: Int? = nil, exceptionCode: Int? = nil, message: String? = nil,
        checks: [JournalCheck]? = nil, status: ReplayStatus? = nil, phase: StepPhase? = nil
    ) {
        self.kind = kind
        self.intent = intent
        self.request = request
        self.requests = requests
        self.answer = answer
        self.frames = frames
        self.exceptionCode = exceptionCode
        self.message = message
        self.checks = checks
        self.status = status
        self.phase = phase
    }
}

extension ReplayEvent: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = ReplayEvent(.end)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("answer", &r.answer)
        try f.field("checks", &r.checks)
        try f.field("exceptionCode", &r.exceptionCode)
        try f.field("frames", &r.frames)
        try f.field("intent", &r.intent)
        try f.field("kind", &r.kind)
        try f.field("message", &r.message)
        try f.field("phase", &r.phase)
        try f.field("request", &r.request)
        try f.field("requests", &r.requests)
        try f.field("status", &r.status)
    }
}
