import LastsetFormats

/// One write request on the wire.
public struct WriteRequest: Hashable, Sendable {
    /// The Modbus function used.
    public enum Function: String, Hashable, Sendable, JSONFieldValue {
        /// Write Single Register (one word).
        case fc06
        /// Write Multiple Registers.
        case fc16
    }
    /// The Modbus function used.
    public var function: Function
    /// First register written.
    public var address: Int
    /// The words written, in wire order.
    public var words: [UInt16]
    /// The registers this request writes, in page order.
    public var registerIds: [String]
    /// A request from its parts.
    public init(function: Function, address: Int, words: [UInt16], registerIds: [String]) {
        self.function = function
        self.address = address
        self.words = words
        self.registerIds = registerIds
    }
}
