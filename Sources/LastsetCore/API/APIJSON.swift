import Foundation
import LastsetFormats

// Fast JSON for job bodies. A finished replay of a large page carries one result per register; with
// JSONEncoder the response alone cost more than the replay's CPU work. The per-register arrays are
// written with `JSONWriter`, the small fixed parts with `APICoding.encoder()`; the output decodes
// with `APICoding.decoder()` into the same values (checked by tests).

extension JSONWriter {
    /// A value encoded by the API's JSONEncoder (for the small parts of a body).
    mutating func encodable<T: Encodable>(_ value: T) {
        guard let data = try? APICoding.encoder().encode(value) else { return null() }
        raw([UInt8](data))
    }

    mutating func optional(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        self.key(key)
        string(value)
    }

    mutating func optional(_ key: StaticString, _ value: Int?) {
        guard let value else { return }
        self.key(key)
        int(value)
    }

    mutating func optional(_ key: StaticString, _ value: RegisterValue?) {
        guard let value else { return }
        self.key(key)
        self.value(value)
    }
}

extension IdentityValue {
    /// Writes the value as its Codable form (templates, audit records).
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("address", address)
        w.field("registerId", registerId)
        w.field("value", value)
        w.field("valueData", valueData)
        w.endObject()
    }
}

extension AuditRecord {
    /// Writes the record as `JSONEncoder` with sorted keys would (one audit line).
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        if let afterWrite {
            w.key("afterWrite")
            w.encodable(afterWrite)
        }
        if let beforeWrite {
            w.key("beforeWrite")
            w.encodable(beforeWrite)
        }
        w.field("device", device)
        w.field("endpoint", endpoint)
        w.key("identity")
        w.beginArray()
        for i in identity { i.write(to: &w) }
        w.endArray()
        w.optional("job", job)
        w.field("kind", kind.rawValue)
        if let m = message {
            w.field("message", m)
        }
        w.field("pageHash", pageHash)
        w.field("pageId", pageId)
        w.key("registers")
        w.beginArray()
        for reg in registers {
            w.beginObject()
            w.optional("after", reg.after)
            w.optional("before", reg.before)
            w.optional("message", reg.message)
            w.optional("readBack", reg.readBack)
            w.field("registerId", reg.registerId)
            if let r = reg.rollback {
                w.key("rollback")
                w.beginObject()
                w.optional("readBack", r.readBack)
                w.field("restored", r.restored)
                w.field("status", r.status.rawValue)
                w.endObject()
            }
            w.field("status", reg.status.rawValue)
            w.optional("written", reg.written)
            w.endObject()
        }
        w.endArray()
        w.optional("registersChanged", registersChanged)
        w.field("result", result.rawValue)
        w.optional("rollback", rollback?.rawValue)
        if let v = templateVersion {
            w.field("templateVersion", v)
        }
        w.optional("templateVersionId", templateVersionId)
        w.field("time", time)
        w.field("unit", unit)
        w.field("who", who)
        w.optional("writeFrames", writeFrames)
        w.endObject()
    }
}

extension RegisterResult {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.optional("actual", actual)
        w.optional("actualData", actualData)
        if let actualUnset {
            w.field("actualUnset", actualUnset)
        }
        w.field("address", address)
        w.optional("before", before)
        if let beforeUnset {
            w.field("beforeUnset", beforeUnset)
        }
        w.optional("exceptionCode", exceptionCode)
        w.field("expected", expected)
        w.field("expectedData", expectedData)
        if let expectedUnset {
            w.field("expectedUnset", expectedUnset)
        }
        w.field("length", length)
        w.optional("message", message)
        w.field("registerId", registerId)
        w.field("status", status.rawValue)
        w.endObject()
    }
}

extension ReplayReport {
    /// Writes the report as `JSONEncoder` with sorted keys would.
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("afterWrite")
        w.encodable(afterWrite)
        w.key("beforeWrite")
        w.encodable(beforeWrite)
        w.key("changedLater")
        w.encodable(changedLater)
        w.field("endpoint", endpoint)
        w.field("fellBackToFC06", fellBackToFC06)
        w.optional("firstInDoubt", firstInDoubt)
        w.key("identity")
        w.encodable(identity)
        w.optional("lastConfirmed", lastConfirmed)
        w.key("options")
        w.encodable(options)
        w.field("pageHash", pageHash)
        w.field("pageId", pageId)
        w.key("plan")
        w.beginArray()
        for p in plan {
            // Every register id of every request: JSONEncoder cost as much as the rest of the report.
            w.beginObject()
            w.field("address", p.address)
            w.field("count", p.count)
            w.field("function", p.function.rawValue)
            w.key("registerIds")
            w.beginArray()
            for id in p.registerIds { w.string(id) }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.optional("reason", reason)
        w.key("registers")
        w.beginArray()
        for r in registers {
            w.lineBreak()
            r.write(to: &w)
        }
        w.endArray()
        w.field("requests", requests)
        if let rollback {
            w.key("rollback")
            w.beginObject()
            w.key("registers")
            w.beginArray()
            for r in rollback.registers { r.write(to: &w) }
            w.endArray()
            w.field("restored", rollback.restored)
            w.endObject()
        }
        w.field("status", status.rawValue)
        w.optional("stoppedAt", stoppedAt)
        w.field("target", target)
        w.field("templateVersion", templateVersion)
        w.optional("templateVersionId", templateVersionId)
        w.field("unit", unit)
        w.key("warnings")
        w.encodable(warnings)
        w.field("writeFrames", writeFrames)
        w.endObject()
    }
}

extension CaptureReport {
    /// Writes the report as `JSONEncoder` with sorted keys would.
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("archived", archived)
        w.field("device", device)
        w.field("entryCount", entryCount)
        w.optional("error", error)
        w.field("pageHash", pageHash)
        w.field("pageId", pageId)
        w.key("problems")
        w.beginArray()
        for p in problems {
            w.lineBreak()
            w.beginObject()
            w.field("address", p.address)
            w.field("cause", p.cause.rawValue)
            w.field("registerId", p.registerId)
            w.field("rule", p.rule)
            w.optional("value", p.value)
            w.optional("valueData", p.valueData)
            w.endObject()
        }
        w.endArray()
        w.field("requests", requests)
        w.key("skipped")
        w.beginArray()
        for s in skipped {
            w.beginObject()
            w.field("address", s.address)
            w.field("reason", s.reason.rawValue)
            w.field("registerId", s.registerId)
            w.endObject()
        }
        w.endArray()
        if let unchanged {
            w.field("unchanged", unchanged)
        }
        w.optional("version", version)
        w.optional("versionId", versionId)
        w.endObject()
    }
}

extension JobInfo {
    /// Writes the job as `JSONEncoder` with sorted keys would.
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        if let applyAll {
            w.key("applyAll")
            applyAll.write(to: &w)
        }
        if let capture {
            w.key("capture")
            capture.write(to: &w)
        }
        w.field("device", device)
        w.optional("error", error)
        if let finishedAt {
            w.field("finishedAt", finishedAt)
        }
        w.field("id", id)
        w.field("kind", kind.rawValue)
        w.field("pageId", pageId)
        if let progress {
            w.key("progress")
            w.encodable(progress)
        }
        if let replay {
            w.key("replay")
            replay.write(to: &w)
        }
        w.field("startedAt", startedAt)
        w.field("state", state.rawValue)
        w.field("who", who)
        w.endObject()
    }
}

extension APICoding {
    /// One job as a JSON body (newline-terminated).
    public static func json(_ job: JobInfo) -> [UInt8] {
        var w = JSONWriter(capacity: 1024 + (job.replay?.registers.count ?? job.capture?.skipped.count ?? 0) * 160)
        job.write(to: &w)
        return w.line()
    }

    /// A list of jobs as a JSON body (newline-terminated).
    public static func json(_ jobs: [JobInfo]) -> [UInt8] {
        var w = JSONWriter(capacity: 4096)
        w.beginArray()
        for job in jobs { job.write(to: &w) }
        w.endArray()
        return w.line()
    }

    /// A replay report as a JSON body (newline-terminated).
    public static func json(_ report: ReplayReport) -> [UInt8] {
        var w = JSONWriter(capacity: 1024 + report.registers.count * 160)
        report.write(to: &w)
        return w.line()
    }
}

extension DevicePageState {
    /// Writes the state as its Codable form (a device-state file, rewritten by every replay: with
    /// `JSONEncoder` a 7,500-register page's record cost more than the replay's own CPU work).
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("device", device)
        w.field("pageId", pageId)
        if let a = applied {
            w.key("applied")
            w.beginObject()
            w.field("version", a.version)
            w.field("versionId", a.versionId)
            w.field("pageHash", a.pageHash)
            w.field("appliedAt", a.appliedAt)
            w.field("appliedBy", a.appliedBy)
            w.optional("job", a.job)
            w.key("entries")
            w.beginArray()
            for e in a.entries {
                w.lineBreak()
                w.beginObject()
                w.field("registerId", e.registerId)
                w.field("address", e.address)
                w.field("valueData", e.valueData)
                w.field("value", e.value)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        if let m = unverified {
            w.key("unverified")
            w.beginObject()
            w.field("device", m.device)
            w.field("pageId", m.pageId)
            w.field("since", m.since)
            w.field("job", m.job)
            w.field("reason", m.reason.rawValue)
            w.field("message", m.message)
            w.endObject()
        }
        w.endObject()
    }
}
