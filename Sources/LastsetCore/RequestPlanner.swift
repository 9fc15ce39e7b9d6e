/// A span of registers to read (one register definition's address and length).
public struct AddressSpan: Hashable, Sendable {
    public var address: Int
    public var length: Int
    public init(address: Int, length: Int) {
        self.address = address
        self.length = length
    }
    public var end: Int { address + length }
}

/// One read request: `count` registers starting at `address`.
public struct ReadRequest: Hashable, Sendable {
    public var address: Int
    public var count: Int
    public init(address: Int, count: Int) {
        self.address = address
        self.count = count
    }
    public var end: Int { address + count }
}

/// One register value to write, already encoded.
public struct PlannedWrite: Hashable, Sendable {
    public var registerId: String
    public var address: Int
    public var words: [UInt16]
    public init(registerId: String, address: Int, words: [UInt16]) {
        self.registerId = registerId
        self.address = address
        self.words = words
    }
}

/// One write request on the wire.
public struct WriteRequest: Hashable, Sendable {
    public enum Function: String, Hashable, Sendable, Codable {
        case fc06, fc16
    }
    public var function: Function
    public var address: Int
    public var words: [UInt16]
    /// The registers this request writes, in page order.
    public var registerIds: [String]
    public init(function: Function, address: Int, words: [UInt16], registerIds: [String]) {
        self.function = function
        self.address = address
        self.words = words
        self.registerIds = registerIds
    }
}

/// Plans the fewest read requests and the page-ordered write requests a device's limits allow.
/// STUB: to be implemented.
public enum RequestPlanner {
    /// Merges spans into the fewest reads: never more than `maxReadRegisters` per request, gaps of at
    /// most `maxGap` unused registers bridged, a span never split across two requests.
    public static func reads(_ spans: [AddressSpan], limits: DeviceLimits) -> [ReadRequest] {
        fatalError("unimplemented")
    }

    /// Writes in the given (page) order; address-contiguous ascending runs merge into one FC16 of at
    /// most `maxWriteRegisters`; FC06 per register when `writeFunction` is fc06 (a multi-word value
    /// becomes one FC06 per word).
    public static func writes(_ writes: [PlannedWrite], limits: DeviceLimits) -> [WriteRequest] {
        fatalError("unimplemented")
    }
}
