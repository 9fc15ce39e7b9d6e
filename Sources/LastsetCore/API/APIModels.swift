import Foundation
import LastsetFormats

// Bodies of the control API (`docs/API.md`), shared by the daemon and the CLI.

/// The daemon's state as `GET /v1/health` gives it.
public enum HealthStatus: String, Codable, Sendable, Hashable {
    /// Serving.
    case ok
    /// Shutting down: new jobs are refused, running ones finish.
    case stopping
}

/// `GET /v1/health`.
public struct HealthInfo: Codable, Sendable, Hashable {
    /// `ok`, or `stopping` during shutdown.
    public var status: HealthStatus
    public var version: String
    public var startedAt: Date
    public var configFile: String
    public var dataDirectory: String
    public var devices: Int
    public var pages: Int
    public var runningJobs: Int
    /// The fleet (this host, its hub, the last sync); nil without a `fleet` section.
    public var fleet: FleetStatus?

    public init(
        status: HealthStatus, version: String, startedAt: Date, configFile: String, dataDirectory: String, devices: Int, pages: Int,
        runningJobs: Int
    ) {
        self.status = status
        self.version = version
        self.startedAt = startedAt
        self.configFile = configFile
        self.dataDirectory = dataDirectory
        self.devices = devices
        self.pages = pages
        self.runningJobs = runningJobs
        self.fleet = nil
    }
}

/// A register's value as last polled.
public struct LiveValue: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    public var valueData: String?
    public var value: RegisterValue?
    public var lastDate: Date?
    /// Why the last read of this register failed.
    public var error: String?

    public init(registerId: String, address: Int, valueData: String?, value: RegisterValue?, lastDate: Date?, error: String?) {
        self.registerId = registerId
        self.address = address
        self.valueData = valueData
        self.value = value
        self.lastDate = lastDate
        self.error = error
    }
}

/// `GET /v1/devices` (one element) and `GET /v1/devices/{id}`.
public struct DeviceStatus: Codable, Sendable, Hashable {
    public var id: String
    public var endpoint: String
    public var unit: Int
    public var pages: [String]
    /// Poll interval ("0s" when not polled).
    public var poll: String
    /// nil until the first request.
    public var reachable: Bool?
    public var lastError: String?
    public var lastErrorAt: Date?
    public var lastSuccessAt: Date?
    /// The kind of running job holding the device, if any.
    public var busy: JobKind?
    /// Live values by page (only when polled).
    public var live: [String: [LiveValue]]
    /// Pages an interrupted replay may have left partially written (until a replay succeeds or a diff).
    public var unverified: [UnverifiedMark]?
    /// What the device's requests met on the wire (nil until its first request).
    public var counters: LinkCounters?
    /// Per page: the template version last applied successfully, when, by whom (absent: never).
    public var applied: [String: AppliedSummary]?
    /// Per page: conformance to that version (`GET /v1/conformance` has the details).
    public var conformance: [String: ConformanceState]?

    public init(
        id: String, endpoint: String, unit: Int, pages: [String], poll: String, reachable: Bool? = nil, lastError: String? = nil,
        lastErrorAt: Date? = nil, lastSuccessAt: Date? = nil, busy: JobKind? = nil, live: [String: [LiveValue]] = [:],
        counters: LinkCounters? = nil
    ) {
        self.id = id
        self.endpoint = endpoint
        self.unit = unit
        self.pages = pages
        self.poll = poll
        self.reachable = reachable
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
        self.lastSuccessAt = lastSuccessAt
        self.busy = busy
        self.live = live
        self.counters = counters
    }
}

/// `GET /v1/pages` (one element).
public struct PageSummary: Codable, Sendable, Hashable {
    public var id: String
    public var title: String?
    public var registers: Int
    /// Devices configured with this page.
    public var devices: [String]
    /// Latest archived version's number, nil when none.
    public var latestVersion: Int?
    /// Latest archived version's id (`3`, or `<host>-<n>` in a fleet), nil when none.
    public var latestVersionId: String?
    /// Set when the latest template cannot be used.
    public var templateProblem: String?
    public var hash: String
    /// The page's `description`, when it has one.
    public var description: String?

    public init(
        id: String, title: String?, registers: Int, devices: [String], latestVersion: Int?, templateProblem: String?,
        hash: String,
        latestVersionId: String? = nil, description: String? = nil
    ) {
        self.latestVersionId = latestVersionId ?? latestVersion.map(String.init)
        self.description = description
        self.id = id
        self.title = title
        self.registers = registers
        self.devices = devices
        self.latestVersion = latestVersion
        self.templateProblem = templateProblem
        self.hash = hash
    }
}

/// `POST /v1/pages/{page}/capture` body.
public struct CaptureRequest: Codable, Sendable, Hashable {
    /// Configured device id of the reference machine.
    public var device: String
    public init(device: String) { self.device = device }
}

/// `POST /v1/pages/{page}/apply` body: a configured device, or an ad-hoc endpoint and unit.
public struct ApplyRequest: Codable, Sendable, Hashable {
    public var device: String?
    /// `tcp://host:port` or `rtu:///dev/…` of a machine not in the config.
    public var endpoint: String?
    /// Unit id for an ad-hoc endpoint (default 1).
    public var unit: Int?
    /// Template version (`3`, `"3"`, `"line-7-3"`, `"latest"`); latest when absent.
    public var version: TemplateVersionRef?
    public var dryRun: Bool?
    public var onError: OnError?
    /// The version id the operator confirmed (the dry run's `templateVersionId`): 409 `version_changed` when the
    /// request resolves to another (`VersionPin`).
    public var expectVersion: String?

    public init(
        device: String? = nil, endpoint: String? = nil, unit: Int? = nil, version: TemplateVersionRef? = nil, dryRun: Bool? = nil,
        onError: OnError? = nil, expectVersion: String? = nil
    ) {
        self.expectVersion = expectVersion
        self.device = device
        self.endpoint = endpoint
        self.unit = unit
        self.version = version
        self.dryRun = dryRun
        self.onError = onError
    }
}

/// State of a capture or replay job.
public enum JobState: String, Codable, Sendable, Hashable {
    case running, finished
}

/// `GET /v1/jobs/{id}`: a capture or replay, its progress and, once finished, its report.
public struct JobInfo: Codable, Sendable, Hashable {
    public var id: String
    /// Capture or apply.
    public var kind: JobKind
    public var pageId: String
    public var device: String
    public var who: String
    public var state: JobState
    public var progress: JobProgress?
    public var startedAt: Date
    public var finishedAt: Date?
    public var capture: CaptureReport?
    public var replay: ReplayReport?
    /// A whole-machine apply: every page's outcome.
    public var applyAll: ApplyAllReport?
    /// Set when the job could not run at all (e.g. the template is corrupt).
    public var error: String?

    public init(
        id: String, kind: JobKind, pageId: String, device: String, who: String, state: JobState = .running,
        progress: JobProgress? = nil, startedAt: Date = Date(), finishedAt: Date? = nil, capture: CaptureReport? = nil,
        replay: ReplayReport? = nil, error: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.pageId = pageId
        self.device = device
        self.who = who
        self.state = state
        self.progress = progress
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.capture = capture
        self.replay = replay
        self.error = error
    }

    /// True when the job finished and did what was asked (archived; replay succeeded or dry run planned).
    public var succeeded: Bool {
        guard state == .finished, error == nil else { return false }
        if let capture { return capture.archived || capture.unchanged == true }
        if let replay { return replay.status == .succeeded || replay.status == .planned }
        if let applyAll { return applyAll.succeeded }
        return false
    }
}

/// `GET /v1/audit`.
public struct AuditPage: Codable, Sendable, Hashable {
    public var records: [AuditRecord]
    /// Lines of the log that could not be parsed.
    public var unreadable: Int
    /// With `?hosts=all` in a fleet: the host of each record (parallel to `records`).
    public var hosts: [String]?
    public init(records: [AuditRecord], unreadable: Int, hosts: [String]? = nil) {
        self.records = records
        self.unreadable = unreadable
        self.hosts = hosts
    }
}

/// The JSON encoder/decoder settings of the API (ISO 8601 dates with milliseconds, sorted keys).
public enum APICoding {
    /// Encoder for API bodies.
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(TimeText.iso8601(date))
        }
        // A device can hold a NaN or an infinity (a live value, a "before"): it must encode, as the
        // fast `JSONWriter` writes it (valueData stays the authoritative form).
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }

    /// Decoder for API bodies.
    public static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let text = try c.decode(String.self)
            do {
                return try TimeText.parse(text)
            } catch {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "\(error)")
            }
        }
        d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return d
    }
}
