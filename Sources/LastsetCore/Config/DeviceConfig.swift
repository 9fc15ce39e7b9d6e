import LastsetFormats
/// Which Modbus function writes registers on a device.
public enum WriteFunction: String, Codable, Sendable, Hashable {
    /// FC16 for runs, FC06 for single registers; falls back to FC06 when FC16 is refused.
    case auto
    /// FC06 only (one request per register).
    case fc06
    /// FC16 only, even for single registers.
    case fc16
}

/// Named per-device protocol limits and timings.
public struct Quirks: Codable, Sendable, Hashable {
    /// Max registers per read request (1...125).
    public var maxReadRegisters: Int?
    /// Max registers per write request (1...123).
    public var maxWriteRegisters: Int?
    /// Largest gap of unused registers bridged when merging reads (0...125).
    public var maxGap: Int?
    public var writeFunction: WriteFunction?
    /// Pause between requests, e.g. "0ms", "5ms".
    public var requestDelay: String?
    /// Response timeout, e.g. "500ms".
    public var timeout: String?
    /// Retries of transient faults (0...10).
    public var retries: Int?

    public init(
        maxReadRegisters: Int? = nil, maxWriteRegisters: Int? = nil, maxGap: Int? = nil,
        writeFunction: WriteFunction? = nil, requestDelay: String? = nil, timeout: String? = nil,
        retries: Int? = nil
    ) {
        self.maxReadRegisters = maxReadRegisters
        self.maxWriteRegisters = maxWriteRegisters
        self.maxGap = maxGap
        self.writeFunction = writeFunction
        self.requestDelay = requestDelay
        self.timeout = timeout
        self.retries = retries
    }
}

/// Quirks with every default filled in and durations parsed.
public struct DeviceLimits: Sendable, Hashable {
    public var maxReadRegisters: Int = 125
    public var maxWriteRegisters: Int = 123
    public var maxGap: Int = 8
    public var writeFunction: WriteFunction = .auto
    public var requestDelay: Duration = .zero
    public var timeout: Duration = .milliseconds(500)
    public var retries: Int = 2

    public init() {}

    /// Resolves declared quirks over the defaults; durations that do not parse keep the default
    /// (the config checker reports them).
    public init(_ quirks: Quirks?) {
        guard let q = quirks else { return }
        if let v = q.maxReadRegisters { maxReadRegisters = v }
        if let v = q.maxWriteRegisters { maxWriteRegisters = v }
        if let v = q.maxGap { maxGap = v }
        if let v = q.writeFunction { writeFunction = v }
        if let s = q.requestDelay, let d = DurationText.parse(s) { requestDelay = d }
        if let s = q.timeout, let d = DurationText.parse(s) { timeout = d }
        if let v = q.retries { retries = v }
    }
}

/// One controller the daemon talks to.
public struct DeviceConfig: Codable, Sendable, Hashable {
    public var id: String
    /// `tcp://host:port` or `rtu:///dev/tty…?baud=…&parity=…&data=…&stop=…`.
    public var endpoint: String
    /// Modbus unit id (0...247).
    public var unit: Int
    /// Ids of the pages this device has.
    public var pages: [String]?
    /// Poll interval, e.g. "10s"; "0s" or absent disables polling.
    public var poll: String?
    public var quirks: Quirks?
    /// The "not set" convention of this device's pages that declare none.
    public var unsetStyle: UnsetStyle?
    /// A TCP gateway to several devices, one per unit id (jobs on other units may run at once); absent or
    /// false: a plain TCP device that answers every unit, locked as a whole (`JobLock`).
    public var gateway: Bool?

    public init(
        id: String, endpoint: String, unit: Int, pages: [String]? = nil, poll: String? = nil, quirks: Quirks? = nil,
        unsetStyle: UnsetStyle? = nil, gateway: Bool? = nil
    ) {
        self.unsetStyle = unsetStyle
        self.gateway = gateway
        self.id = id
        self.endpoint = endpoint
        self.unit = unit
        self.pages = pages
        self.poll = poll
        self.quirks = quirks
    }

    /// Resolved limits.
    public var limits: DeviceLimits { DeviceLimits(quirks) }
}
