import CModbus
import Dispatch
import LastsetSystem
import Glibc
import LastsetCore

/// What one request call put on the wire: frames sent (retries included) and how many of them got no
/// answer (timeout, dropped connection, garbled reply). A write with an unanswered frame may have been
/// stored by the device even though the call failed.
public struct CallFrames: Sendable, Hashable {
    /// Frames sent by the call.
    public var sent = 0
    /// Frames sent that got no valid answer.
    public var unanswered = 0
    /// Zero frames.
    public init(sent: Int = 0, unanswered: Int = 0) {
        self.sent = sent
        self.unanswered = unanswered
    }
}
