import CModbus
import Dispatch
import LastsetSystem
import Glibc
import LastsetCore

/// Timing and retry settings of one connection.
public struct LinkOptions: Sendable, Hashable {
    /// Response timeout of each request (also the TCP connect timeout).
    public var timeout: Duration
    /// Extra attempts after a transient fault (exception 05/06/0B, timeout, disconnect).
    public var retries: Int
    /// Minimum pause between the end of one request and the start of the next.
    public var requestDelay: Duration
    /// The serial line's framing the request is sent with (nil: the connection's endpoint's). A line open
    /// with other settings is closed and reopened with these first; who may ask for which settings is decided
    /// before (`LineAccess`), so a running job never sees its line change.
    public var line: LineSettings?
    /// After a timeout on a serial line, leave it quiet for one more timeout before flushing, so a late reply is
    /// never taken for the next answer (true). A scan turns it off: a probe of an absent unit then costs exactly
    /// its timeout, and a late reply meets the next probe as a reply from another unit, which is refused.
    public var drainsLateReplies = true
    /// Sets every field.
    public init(
        timeout: Duration = .milliseconds(500), retries: Int = 2, requestDelay: Duration = .zero, line: LineSettings? = nil
    ) {
        self.timeout = timeout
        self.retries = retries
        self.requestDelay = requestDelay
        self.line = line
    }
    /// Options from resolved device limits, for a request on `line` (nil: TCP, or the endpoint's framing).
    public init(_ limits: DeviceLimits, line: LineSettings? = nil) {
        self.init(timeout: limits.timeout, retries: limits.retries, requestDelay: limits.requestDelay, line: line)
    }
}
