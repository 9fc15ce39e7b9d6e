import Foundation
import LastsetFormats

/// The kinds of `GET /v1/events` events (the SSE `event:` field).
public enum ServerEventName: String, Codable, Sendable, Hashable, CaseIterable {
    /// The machine behind a device was replaced (`finding`).
    case replaced
    /// The machine behind a device is back at factory values (`finding`).
    case factoryReset
    /// Another model, or a revision not accepted, answers for a device (`finding`): never written to.
    case anotherModel
    /// Applied registers of a device were changed by someone Lastset does not know (`finding`).
    case changedElsewhere
    /// A finding is resolved (`finding`; `adopted`: the machine found is the device's from now on).
    case resolved
    /// A polled page drifted from its applied version (`page`, `registers`).
    case drift
    /// A polled page conforms again (`page`).
    case driftCleared
    /// A device page's as-found record was archived: its first, or something changed since the last (`page`,
    /// `registers` changed, `summary` what and by whom).
    case backup
    /// A job started (`job`).
    case jobStarted
    /// A running job's progress (`job` with `progress`).
    case jobProgress
    /// A job finished (`job` with `succeeded`).
    case jobFinished
    /// Events were missed (a reconnect's `Last-Event-ID` too old or from another run; `reason`): fetch the state again.
    case gap
}

/// One event of `GET /v1/events` (server-sent events): what happened, when, and on which device; the fields its
/// kind uses are set, the others absent.
public struct ServerEvent: Sendable, Hashable, Codable {
    /// What happened.
    public var event: ServerEventName
    /// When.
    public var time: Date
    /// The configured device (jobs: the job's device or target label).
    public var device: String?
    /// A machine finding (replaced, factory reset, another model, changed elsewhere, resolved).
    public var finding: MachineEvent?
    /// For `resolved`: the machine found is the device's from now on.
    public var adopted: Bool?
    /// For drift: the page.
    public var page: String?
    /// For drift: the registers that differ from what was applied.
    public var registers: [String]?
    /// For job events: the job without its report (`capture`, `replay`, `applyAll`, `scan` left out).
    public var job: JobInfo?
    /// For `jobFinished`: whether the job did what was asked (`JobInfo.succeeded`).
    public var succeeded: Bool?
    /// For `gap`: why events were missed.
    public var reason: String?
    /// For `backup`: what changed and by whom, as the audit record says it.
    public var summary: String?

    /// Sets every field.
    public init(
        event: ServerEventName, time: Date = Date(), device: String? = nil, finding: MachineEvent? = nil,
        adopted: Bool? = nil, page: String? = nil, registers: [String]? = nil, job: JobInfo? = nil, succeeded: Bool? = nil,
        reason: String? = nil, summary: String? = nil
    ) {
        self.reason = reason
        self.summary = summary
        self.event = event
        self.time = time
        self.device = device
        self.finding = finding
        self.adopted = adopted
        self.page = page
        self.registers = registers
        self.job = job
        self.succeeded = succeeded
    }

    /// The event of a job's start, progress or end (`name`), the job without its report.
    public static func of(job: JobInfo, _ name: ServerEventName, at time: Date = Date()) -> ServerEvent {
        var bare = job
        (bare.capture, bare.replay, bare.applyAll, bare.scan, bare.asFound) = (nil, nil, nil, nil, nil)
        return ServerEvent(
            event: name, time: time, device: job.device, job: bare, succeeded: job.state == .finished ? job.succeeded : nil)
    }

    /// The event of a machine-recognition action (nil: nothing to tell).
    public static func of(_ action: MachineRecognition.Action, device: String, at time: Date = Date()) -> ServerEvent? {
        switch action {
        case .none, .recorded: return nil
        case .noticed(let e), .restore(let e), .updated(let e):
            let name: ServerEventName
            switch e.kind {
            case .replaced: name = .replaced
            case .factoryReset: name = .factoryReset
            case .anotherModel: name = .anotherModel
            case .changedElsewhere: name = .changedElsewhere
            }
            return ServerEvent(event: name, time: time, device: device, finding: e)
        case .resolved(let e, let adopted):
            return ServerEvent(event: .resolved, time: time, device: device, finding: e, adopted: adopted)
        }
    }

    /// The event as server-sent-events text: `id: RUN-N` (`EventPosition`), `event: NAME`, `data: JSON` (one line), a
    /// blank line. An event that cannot be encoded is never sent as an empty object: a `gap` naming it and why goes in
    /// its place, so a client fetches the state again.
    public func sse(id: String) -> [UInt8] {
        do {
            return Self.block(id: id, name: event, data: [UInt8](try APICoding.encoder().encode(self)))
        } catch {
            let gap = ServerEvent(
                event: .gap, time: time, device: device, reason: "the \(event.rawValue) event could not be encoded: \(error)")
            return Self.block(id: id, name: .gap, data: gap.minimalJSON)
        }
    }

    private static func block(id: String, name: ServerEventName, data: [UInt8]) -> [UInt8] {
        Array("id: \(id)\nevent: \(name.rawValue)\ndata: ".utf8) + data + Array("\n\n".utf8)
    }

    /// `event`, `time`, `device` and `reason` alone, written by hand (text fields only: it cannot fail).
    private var minimalJSON: [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        if let device { w.field("device", device) }
        w.field("event", event.rawValue)
        if let reason { w.field("reason", reason) }
        w.field("time", TimeText.iso8601(time))
        w.endObject()
        return w.bytes
    }
}
