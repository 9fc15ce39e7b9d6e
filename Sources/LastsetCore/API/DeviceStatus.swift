import Foundation
import LastsetFormats

/// `GET /v1/devices` (one element) and `GET /v1/devices/{id}`.
public struct DeviceStatus: Codable, Sendable, Hashable {
    public var id: String
    public var endpoint: String
    public var unit: Int
    public var pages: [String]
    /// Poll interval ("0s" when not polled).
    public var poll: String
    /// Scheduled backup interval as configured (docs/AS-FOUND.md); absent when none.
    public var backup: String?
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
    /// The open finding about the machine behind it (a device with a `replacement` policy: replaced, back at factory
    /// values, another model, changed elsewhere; docs/REPLACEMENT.md); absent when there is none.
    public var machine: MachineEvent?

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
