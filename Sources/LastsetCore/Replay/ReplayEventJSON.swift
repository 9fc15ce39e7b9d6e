import Foundation
import LastsetFormats

// Journal lines written with `JSONWriter`: the intent of a 10,000-register replay lists every
// register, and `JSONEncoder` spent more on that one line than the replay's own work. The output has
// the keys and shapes of the Codable form (sorted keys, absent optionals left out) and decodes with
// `APICoding.decoder()` into the same values as the encoder's (checked by tests).

extension ReplayEvent {
    /// The event as one journal line (without the line break), as `APICoding.encoder()` would write it.
    public var journalLine: [UInt8] {
        var w = JSONWriter(
            capacity: 256 + (intent?.registers.count ?? 0) * 160 + (checks?.count ?? 0) * 64 + (requests?.count ?? 0) * 96
                + (request?.registerIds.count ?? 0) * 16)
        write(to: &w)
        return w.bytes
    }

    /// Writes the event with sorted keys, leaving out absent fields.
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.optional("answer", answer?.rawValue)
        if let checks {
            w.key("checks")
            w.beginArray()
            for c in checks { c.write(to: &w) }
            w.endArray()
        }
        w.optional("exceptionCode", exceptionCode)
        w.optional("frames", frames)
        if let intent {
            w.key("intent")
            intent.write(to: &w)
        }
        w.field("kind", kind.rawValue)
        w.optional("message", message)
        w.optional("phase", phase?.rawValue)
        if let request {
            w.key("request")
            request.write(to: &w)
        }
        if let requests {
            w.key("requests")
            w.beginArray()
            for r in requests { r.write(to: &w) }
            w.endArray()
        }
        w.optional("status", status?.rawValue)
        w.endObject()
    }
}

extension ReplayIntent {
    /// Writes the intent with sorted keys.
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        if let afterWrite {
            w.key("afterWrite")
            w.beginArray()
            for s in afterWrite { s.write(to: &w) }
            w.endArray()
        }
        if let beforeWrite {
            w.key("beforeWrite")
            w.beginArray()
            for s in beforeWrite { s.write(to: &w) }
            w.endArray()
        }
        w.field("device", device)
        w.optional("deviceId", deviceId)
        w.field("endpoint", endpoint)
        w.key("identity")
        w.beginArray()
        for i in identity { i.write(to: &w) }
        w.endArray()
        w.field("job", job)
        w.field("onError", onError.rawValue)
        w.field("pageHash", pageHash)
        w.field("pageId", pageId)
        w.key("registers")
        w.beginArray()
        for r in registers { r.write(to: &w) }
        w.endArray()
        w.field("templateVersion", templateVersion)
        w.field("time", time)
        w.field("unit", unit)
        w.field("who", who)
        w.endObject()
    }
}

extension WriteStep {
    /// Writes the step with sorted keys.
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("address", address)
        w.field("value", value)
        w.endObject()
    }
}

extension IntentRegister {
    /// Writes the register with sorted keys.
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("address", address)
        w.optional("before", before)
        w.optional("beforeData", beforeData)
        w.field("expected", expected)
        w.field("expectedData", expectedData)
        w.field("length", length)
        w.field("registerId", registerId)
        w.endObject()
    }
}

extension PlannedRequest {
    /// Writes the request with sorted keys.
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("address", address)
        w.field("count", count)
        w.field("function", function.rawValue)
        w.key("registerIds")
        w.beginArray()
        for id in registerIds { w.string(id) }
        w.endArray()
        w.endObject()
    }
}

extension JournalCheck {
    /// Writes the check with sorted keys.
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.optional("data", data)
        w.optional("message", message)
        w.field("registerId", registerId)
        w.endObject()
    }
}
