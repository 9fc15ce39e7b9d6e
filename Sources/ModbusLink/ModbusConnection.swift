import LastsetCore

/// Timing and retry settings of one connection.
public struct LinkOptions: Sendable, Hashable {
    public var timeout: Duration
    public var retries: Int
    public var requestDelay: Duration
    public init(timeout: Duration = .milliseconds(500), retries: Int = 2, requestDelay: Duration = .zero) {
        self.timeout = timeout
        self.retries = retries
        self.requestDelay = requestDelay
    }
    /// Options from resolved device limits.
    public init(_ limits: DeviceLimits) {
        self.init(timeout: limits.timeout, retries: limits.retries, requestDelay: limits.requestDelay)
    }
}

/// Requests issued on a connection, counted on the wire (retries included).
public struct RequestCounters: Sendable, Hashable {
    public var reads = 0
    public var writes = 0
    public var retries = 0
    public init() {}
}

/// One libmodbus context (one TCP peer, or one serial line shared by all its units), owned by an actor
/// whose executor is a private serial queue: blocking libmodbus calls never run on the cooperative pool.
/// STUB: to be implemented.
public actor ModbusConnection {
    public let endpoint: Endpoint

    public init(endpoint: Endpoint, options: LinkOptions = LinkOptions()) {
        self.endpoint = endpoint
    }

    /// FC03.
    public func readHoldingRegisters(unit: Int, address: Int, count: Int) throws(ModbusError) -> [UInt16] {
        fatalError("unimplemented")
    }

    /// FC04.
    public func readInputRegisters(unit: Int, address: Int, count: Int) throws(ModbusError) -> [UInt16] {
        fatalError("unimplemented")
    }

    /// FC06.
    public func writeRegister(unit: Int, address: Int, value: UInt16) throws(ModbusError) {
        fatalError("unimplemented")
    }

    /// FC16.
    public func writeRegisters(unit: Int, address: Int, values: [UInt16]) throws(ModbusError) {
        fatalError("unimplemented")
    }

    /// Requests issued so far.
    public var counters: RequestCounters { RequestCounters() }

    /// Closes the context; the next request reconnects.
    public func close() {}
}
