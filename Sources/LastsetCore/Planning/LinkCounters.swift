/// What one device's requests met on the wire, counted since the daemon started (retries included).
public struct LinkCounters: Codable, Sendable, Hashable {
    /// Requests sent (reads and writes, each attempt counted).
    public var requests: Int
    /// Attempts repeated after a transient fault.
    public var retries: Int
    /// Replies that failed their CRC check (RTU).
    public var crcErrors: Int
    /// Replies that did not belong to the request: wrong transaction id (TCP), unit or function.
    public var badReplies: Int
    /// Requests that got no reply within the response timeout.
    public var timeouts: Int
    /// Replies that were a Modbus exception.
    public var exceptions: Int

    /// Zero counters, or the given values.
    public init(
        requests: Int = 0, retries: Int = 0, crcErrors: Int = 0, badReplies: Int = 0, timeouts: Int = 0, exceptions: Int = 0
    ) {
        self.requests = requests
        self.retries = retries
        self.crcErrors = crcErrors
        self.badReplies = badReplies
        self.timeouts = timeouts
        self.exceptions = exceptions
    }
}
