import Foundation

/// One register a replay intends to write, as journaled before the first write frame.
public struct IntentRegister: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    public var length: Int
    /// The template's value (decoded) and words (hex, wire order).
    public var expected: RegisterValue
    public var expectedData: String
    /// The target's value before the replay, when the snapshot read it.
    public var before: RegisterValue?
    public var beforeData: String?

    /// Sets every field.
    public init(
        registerId: String, address: Int, length: Int, expected: RegisterValue, expectedData: String,
        before: RegisterValue? = nil, beforeData: String? = nil
    ) {
        self.registerId = registerId
        self.address = address
        self.length = length
        self.expected = expected
        self.expectedData = expectedData
        self.before = before
        self.beforeData = beforeData
    }
}

/// What a replay is about to do, journaled (fsynced) before its first write frame.
public struct ReplayIntent: Codable, Sendable, Hashable {
    /// The job id (shared with its audit records).
    public var job: String
    public var time: Date
    public var who: String
    public var pageId: String
    /// Configured device id, nil for an ad-hoc endpoint.
    public var deviceId: String?
    /// The device label (id, or endpoint and unit).
    public var device: String
    public var endpoint: String
    public var unit: Int
    public var templateVersion: Int
    public var pageHash: String
    public var identity: [IdentityValue]
    public var onError: OnError
    /// The registers to write, in page order.
    public var registers: [IntentRegister]
    /// The page's steps around the writes (nil in journals written before intents listed them): an
    /// interrupted record names each, sent or not.
    public var beforeWrite: [WriteStep]?
    public var afterWrite: [WriteStep]?

    /// Sets every field.
    public init(
        job: String, time: Date, who: String, pageId: String, deviceId: String?, device: String, endpoint: String, unit: Int,
        templateVersion: Int, pageHash: String, identity: [IdentityValue], onError: OnError, registers: [IntentRegister],
        beforeWrite: [WriteStep]? = nil, afterWrite: [WriteStep]? = nil
    ) {
        self.beforeWrite = beforeWrite
        self.afterWrite = afterWrite
        self.job = job
        self.time = time
        self.who = who
        self.pageId = pageId
        self.deviceId = deviceId
        self.device = device
        self.endpoint = endpoint
        self.unit = unit
        self.templateVersion = templateVersion
        self.pageHash = pageHash
        self.identity = identity
        self.onError = onError
        self.registers = registers
    }
}

/// How a write request ended on the wire.
public enum WriteAnswer: String, Codable, Sendable, Hashable {
    /// The device acknowledged it.
    case acknowledged
    /// The device answered with an exception: not stored.
    case rejected
    /// Sent, and no (valid) answer came: it may have been stored.
    case noAnswer
    /// Never sent (no connection).
    case notSent

    /// What a write's call says of it: no error → acknowledged; an exception code → rejected (the device answered
    /// and stored nothing); otherwise a frame that went out unanswered → noAnswer (it may have been stored), else
    /// notSent. The one classification for register writes, steps and rollback writes.
    public static func of(failed: Bool, exception: Bool, unansweredFrames: Int) -> WriteAnswer {
        guard failed else { return .acknowledged }
        if exception { return .rejected }
        return unansweredFrames > 0 ? .noAnswer : .notSent
    }
}

/// A request as the journal records it.
public struct JournalRequest: Codable, Sendable, Hashable {
    public var function: WriteRequest.Function
    public var address: Int
    public var count: Int
    /// The registers it writes (empty for a beforeWrite / afterWrite step).
    public var registerIds: [String]

    /// Sets every field.
    public init(function: WriteRequest.Function, address: Int, count: Int, registerIds: [String]) {
        self.function = function
        self.address = address
        self.count = count
        self.registerIds = registerIds
    }

    /// The journal form of a planned write.
    public init(_ request: WriteRequest) {
        self.init(
            function: request.function, address: request.address, count: request.words.count,
            registerIds: request.registerIds)
    }
}

/// One register read back: its words (hex) or nil when the read failed.
public struct JournalCheck: Codable, Sendable, Hashable {
    public var registerId: String
    /// The words read (hex, wire order); nil when they could not be read.
    public var data: String?
    /// Why the read failed.
    public var message: String?

    /// Sets every field.
    public init(registerId: String, data: String?, message: String? = nil) {
        self.registerId = registerId
        self.data = data
        self.message = message
    }
}

/// One transition of a replay's state machine. The replay's report, its audit record and — after a
/// crash — the "interrupted" record are all derived from the sequence of these (`ReplayLedger`).
public struct ReplayEvent: Codable, Sendable, Hashable {
    /// Which transition.
    public enum Kind: String, Codable, Sendable, Hashable {
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
    public var request: JournalRequest?
    public var requests: [JournalRequest]?
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
        _ kind: Kind, intent: ReplayIntent? = nil, request: JournalRequest? = nil, requests: [JournalRequest]? = nil,
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
