import Foundation
import LastsetFormats

/// `GET /v1/jobs/{id}`: a capture or replay, its progress and, once finished, its report.
public struct JobInfo: Sendable, Hashable {
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
    /// A scan: every device it found.
    public var scan: ScanReport?
    /// An as-found backup: each page's outcome.
    public var asFound: AsFoundReport?
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
        // An unchanged capture whose audit record could not be written did not do what was asked: it is not recorded.
        if let capture { return capture.archived || (capture.unchanged == true && capture.error == nil) }
        if let replay { return replay.status == .succeeded || replay.status == .planned }
        if let applyAll { return applyAll.succeeded }
        if let scan { return scan.error == nil }
        if let asFound { return asFound.succeeded }
        return false
    }
}

extension JobInfo: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = JobInfo(id: "", kind: .capture, pageId: "", device: "", who: "", startedAt: .distantPast)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("applyAll", &r.applyAll)
        try f.field("asFound", &r.asFound)
        try f.field("capture", &r.capture)
        try f.field("device", &r.device)
        try f.field("error", &r.error)
        try f.field("finishedAt", &r.finishedAt)
        try f.field("id", &r.id)
        try f.field("kind", &r.kind)
        try f.field("pageId", &r.pageId)
        try f.field("progress", &r.progress)
        try f.field("replay", &r.replay)
        try f.field("scan", &r.scan)
        try f.field("startedAt", &r.startedAt)
        try f.field("state", &r.state)
        try f.field("who", &r.who)
    }
}
