/// A failed Modbus request, carrying the exception code or errno and libmodbus's message.
public struct ModbusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Kind: Hashable, Sendable {
        /// The device answered with a Modbus exception (01 illegal function, 02 illegal address, …).
        case exception(UInt8)
        /// No (valid) reply within the response timeout.
        case timeout
        /// Connecting failed (refused, no such device, …).
        case connect
        /// The connection broke (reset, closed by peer, EOF).
        case disconnected
        /// A reply that failed its CRC check (RTU line noise).
        case badCRC
        /// A reply that does not belong to the request: wrong transaction id (TCP), unit or function code.
        case badReply
        /// Anything else libmodbus reported.
        case protocolError
        /// The request was refused before being sent (bad arguments).
        case invalidRequest
    }

    /// The kind of failure.
    public var kind: Kind
    /// errno right after the failing call (0 when not applicable).
    public var errno: Int32
    /// libmodbus's `modbus_strerror` text, or ours.
    public var message: String
    /// The function and address of the request, for messages ("read 100+10", "write 200").
    public var request: String

    /// Sets every field.
    public init(kind: Kind, errno: Int32, message: String, request: String) {
        self.kind = kind
        self.errno = errno
        self.message = message
        self.request = request
    }

    /// The Modbus exception code when the device answered with one.
    public var exceptionCode: UInt8? {
        if case .exception(let c) = kind { return c }
        return nil
    }

    /// Transient faults worth retrying: exception 05 (acknowledge), 06 (busy), 0B (gateway target
    /// failed to respond), timeouts, dropped connections, and replies garbled on the way (bad CRC, a reply
    /// that is not the answer to this request), which the connection has already flushed or reopened.
    public var isTransient: Bool {
        switch kind {
        case .exception(let c): return c == 0x05 || c == 0x06 || c == 0x0B
        case .timeout, .disconnected, .connect, .badCRC, .badReply: return true
        case .protocolError, .invalidRequest: return false
        }
    }

    /// `read 100+10 (FC03, unit 1): exception 02 (Illegal data address)` or the message with errno.
    public var description: String {
        switch kind {
        case .exception(let c):
            return "\(request): exception \(String(format: "%02X", c)) (\(message))"
        default:
            return "\(request): \(message)" + (errno != 0 ? " (errno \(errno))" : "")
        }
    }
}
