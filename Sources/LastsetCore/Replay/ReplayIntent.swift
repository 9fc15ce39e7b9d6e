import Foundation
import LastsetFormats

/// What a replay is about to do, journaled (fsynced) before its first write frame.
public struct ReplayIntent: Sendable, Hashable {
    /// The job id (shared with its audit records).
    public var job: String
    public var time: Date
    public var who: String
    public var pageId: String
    /// Configured device id, nil for an ad-hoc endpoint.
    public var deviceId: String?
    /// The device label (id, or endpoint and unit).
    public var device: String
    public var endpoint: String
    public var unit: Int
    public var templateVersion: Int
    public var pageHash: String
    public var identity: [RecordedValue]
    public var onError: OnError
    /// The registers to write, in page order.
    public var registers: [IntentRegister]
    /// The page's steps around the writes (nil in journals written before intents listed them): an
    /// interrupted record names each, sent or not.
    public var beforeWrite: [WriteStep]?
    public var afterWrite: [WriteStep]?

    /// Sets every field.
    public init(
        job: String, time: Date, who: String, pageId: String, deviceId: String?, device: String, endpoint: String, unit: Int,
        templateVersion: Int, pageHash: String, identity: [RecordedValue], onError: OnError, registers: [IntentRegister],
        beforeWrite: [WriteStep]? = nil, afterWrite: [WriteStep]? = nil
    ) {
        self.beforeWrite = beforeWrite
        self.afterWrite = afterWrite
        self.job = job
        self.time = time
        self.who = who
        self.pageId = pageId
        self.deviceId = deviceId
        self.device = device
        self.endpoint = endpoint
        self.unit = unit
        self.templateVersion = templateVersion
        self.pageHash = pageHash
        self.identity = identity
        self.onError = onError
        self.registers = registers
    }
}

extension ReplayIntent: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = ReplayIntent(
        job: "", time: .distantPast, who: "", pageId: "", deviceId: nil, device: "", endpoint: "", unit: 0, templateVersion: 0,
        pageHash: "", identity: [], onError: .stop, registers: [])

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("afterWrite", &r.afterWrite)
        try f.field("beforeWrite", &r.beforeWrite)
        try f.field("device", &r.device)
        try f.field("deviceId", &r.deviceId)
        try f.field("endpoint", &r.endpoint)
        try f.field("identity", &r.identity)
        try f.field("job", &r.job)
        try f.field("onError", &r.onError)
        try f.field("pageHash", &r.pageHash)
        try f.field("pageId", &r.pageId)
        try f.field("registers", &r.registers)
        try f.field("templateVersion", &r.templateVersion)
        try f.field("time", &r.time)
        try f.field("unit", &r.unit)
        try f.field("who", &r.who)
    }
}
