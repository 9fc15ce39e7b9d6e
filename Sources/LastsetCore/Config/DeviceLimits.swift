import LastsetFormats

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
