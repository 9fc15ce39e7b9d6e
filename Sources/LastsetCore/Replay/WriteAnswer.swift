import Foundation
import LastsetFormats

/// How a write request ended on the wire.
public enum WriteAnswer: String, JSONFieldValue, Sendable, Hashable {
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
