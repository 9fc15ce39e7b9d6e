import LastsetFormats

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
