import LastsetFormats

/// What `POST /v1/scan` found on an endpoint: every device that answered, per baud rate on a serial line, with the
/// time each sweep took.
public struct ScanReport: Sendable, Hashable {
    /// The endpoint scanned, as given.
    public var endpoint: String
    /// The units probed, in order.
    public var units: [Int]
    /// The response timeout of each probe, in milliseconds.
    public var timeoutMs: Int
    /// One sweep per baud rate (one for TCP).
    public var sweeps: [ScanSweep]
    /// Why the scan stopped early (the endpoint unreachable, the line in use with other settings), nil when whole.
    public var error: String?

    /// Sets every field.
    public init(endpoint: String, units: [Int], timeoutMs: Int, sweeps: [ScanSweep] = [], error: String? = nil) {
        self.endpoint = endpoint
        self.units = units
        self.timeoutMs = timeoutMs
        self.sweeps = sweeps
        self.error = error
    }

    /// Every device found, sweep by sweep.
    public var found: [FoundDevice] { sweeps.flatMap(\.found) }
}

/// One sweep of the units at one baud rate (TCP: the only sweep, no baud).
public struct ScanSweep: Sendable, Hashable {
    /// The baud rate (nil on TCP).
    public var baud: Int?
    /// The devices that answered, by unit.
    public var found: [FoundDevice]
    /// Probes sent (a garbled answer is probed once more).
    public var probes: Int
    /// Every request sent, probes, identification and identity reads included.
    public var requests: Int
    /// How long the sweep took, in seconds.
    public var seconds: Double

    /// Sets every field.
    public init(baud: Int?, found: [FoundDevice], probes: Int, requests: Int, seconds: Double) {
        self.baud = baud
        self.found = found
        self.probes = probes
        self.requests = requests
        self.seconds = seconds
    }
}

extension ScanReport: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = ScanReport(endpoint: "", units: [], timeoutMs: 0)

    /// Its one declaration, inside a scan job's body (it was encoded apart with `try?`, `null` in its place on a
    /// failure: a declared record cannot fail to write).
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("endpoint", &r.endpoint)
        try f.field("error", &r.error)
        try f.field("sweeps", &r.sweeps)
        try f.field("timeoutMs", &r.timeoutMs)
        try f.field("units", &r.units)
    }
}

extension ScanSweep: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = ScanSweep(baud: nil, found: [], probes: 0, requests: 0, seconds: 0)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("baud", &r.baud)
        try f.field("found", &r.found)
        try f.field("probes", &r.probes)
        try f.field("requests", &r.requests)
        try f.field("seconds", &r.seconds)
    }
}

extension ScanRequest {
    /// The keys `POST /v1/scan` accepts.
    public static let bodyShape = RequestBody.Shape(keys: ["endpoint", "units", "bauds", "timeout"])
}

/// The body of `POST /v1/scan`.
public struct ScanRequest: Codable, Sendable, Hashable {
    /// `tcp://HOST:PORT` or `rtu:///dev/…` (its baud is the default of `bauds`).
    public var endpoint: String
    /// `1-247` (default), `3,17,42`, `1-10,42`.
    public var units: String?
    /// Baud rates to sweep a serial line at, in order (default: the endpoint's).
    public var bauds: [Int]?
    /// The response timeout of each probe (`"100ms"`, default `"200ms"`).
    public var timeout: String?

    /// Sets every field.
    public init(endpoint: String, units: String? = nil, bauds: [Int]? = nil, timeout: String? = nil) {
        self.endpoint = endpoint
        self.units = units
        self.bauds = bauds
        self.timeout = timeout
    }
}
