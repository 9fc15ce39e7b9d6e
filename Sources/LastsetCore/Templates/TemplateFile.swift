import Foundation
import LastsetFormats

/// The on-disk form of a template: a header line, then the template as JSON (one entry per line).
///
///     {"format":"lastset-template","checksum":"sha256:…","summary":{…}}
///     {"capturedAt":…,"entries":[
///     {"address":100,…},
///     …]}
///
/// The checksum covers the exact bytes of the summary and of the template (summary, newline, template),
/// so any edit is caught without re-encoding, and listings read the summary without decoding the
/// entries. Each line is JSON (the file is a two-document JSON stream: `jq . FILE` reads it).
public enum TemplateFile {
    /// Format tag written in every file.
    public static let format = "lastset-template"

    private static let prefix = Array("{\"format\":\"\(format)\",\"checksum\":\"sha256:".utf8)
    private static let middle = Array("\",\"summary\":".utf8)

    /// What a listing shows of a template, read from the header line.
    public struct Summary: Codable, Sendable, Hashable {
        /// Fleet versions only: when and by which host it was archived.
        public var archivedAt: Date?
        public var host: String?
        public var pageId: String
        public var version: Int
        public var pageHash: String
        public var capturedAt: Date
        public var source: String
        public var entries: Int
    }

    /// Encodes a template with its summary and checksum.
    public static func encode(_ template: Template) -> Data {
        var body = JSONWriter(capacity: 64 + template.entries.count * 160)
        write(template, to: &body)
        var head = JSONWriter(capacity: 256)
        head.beginObject()
        if let archivedAt = template.archivedAt {
            head.field("archivedAt", archivedAt)
        }
        head.field("capturedAt", template.capturedAt)
        head.field("entries", template.entries.count)
        if let host = template.host {
            head.field("host", host)
        }
        head.field("pageHash", template.pageHash)
        head.field("pageId", template.pageId)
        head.field("source", template.source.deviceId ?? template.source.endpoint)
        head.field("version", template.version)
        head.endObject()
        var sha = SHA256()
        sha.update(head.bytes)
        sha.update(CollectionOfOne(0x0A))
        sha.update(body.bytes)
        var out = Data(capacity: prefix.count + 64 + middle.count + head.bytes.count + body.bytes.count + 4)
        out.append(contentsOf: prefix)
        out.append(contentsOf: sha.finalize().hexString.lowercased().utf8)
        out.append(contentsOf: middle)
        out.append(contentsOf: head.bytes)
        out.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
        out.append(contentsOf: body.bytes)
        out.append(0x0A)
        return out
    }

    /// Splits a file into its verified summary bytes and template bytes.
    private static func verifiedParts(_ data: Data) throws(TemplateFileError) -> (summary: Data, template: Data) {
        let bytes = [UInt8](data)
        guard bytes.starts(with: prefix) else {
            throw TemplateFileError(reason: "not a \(format) file (its first line does not start with the format tag)")
        }
        guard let newline = bytes.firstIndex(of: 0x0A) else { throw TemplateFileError(reason: "truncated: no header line") }
        let hexStart = prefix.count
        let hexEnd = hexStart + 64
        guard newline > hexEnd + middle.count + 1, Array(bytes[hexEnd..<hexEnd + middle.count]) == middle,
            bytes[newline - 1] == UInt8(ascii: "}")
        else { throw TemplateFileError(reason: "malformed header line") }
        let stored = String(decoding: bytes[hexStart..<hexEnd], as: UTF8.self)
        let summary = bytes[(hexEnd + middle.count)..<(newline - 1)]
        var end = bytes.count
        if end > newline + 1 && bytes[end - 1] == 0x0A { end -= 1 }
        let template = bytes[(newline + 1)..<end]
        var sha = SHA256()
        sha.update(summary)
        sha.update(CollectionOfOne(0x0A))
        sha.update(template)
        let actual = sha.finalize().hexString.lowercased()
        guard actual == stored else {
            throw TemplateFileError(reason: "checksum mismatch (file says sha256:\(stored), content is sha256:\(actual))")
        }
        return (Data(summary), Data(template))
    }

    /// Decodes a file after checking its format tag, checksum and schema version.
    public static func decode(_ data: Data) throws(TemplateFileError) -> Template {
        let parts = try verifiedParts(data)
        let template: Template
        do {
            template = try APICoding.decoder().decode(Template.self, from: parts.template)
        } catch {
            throw TemplateFileError(reason: "checksum matches but the template does not decode: \(describe(error))")
        }
        guard template.schemaVersion == Template.currentSchemaVersion else {
            throw TemplateFileError(reason: "schema version \(template.schemaVersion) is not supported")
        }
        return template
    }

    /// The summary of a file, after checking its checksum (the entries are not decoded).
    public static func summary(_ data: Data) throws(TemplateFileError) -> Summary {
        let parts = try verifiedParts(data)
        do {
            return try APICoding.decoder().decode(Summary.self, from: parts.summary)
        } catch {
            throw TemplateFileError(reason: "unreadable summary: \(describe(error))")
        }
    }

    /// Writes the template's JSON (sorted keys, `Template`'s Codable shape).
    static func write(_ t: Template, to w: inout JSONWriter) {
        w.beginObject()
        if let archivedAt = t.archivedAt {
            w.field("archivedAt", archivedAt)
        }
        w.field("capturedAt", t.capturedAt)
        if let by = t.capturedBy {
            w.field("capturedBy", by)
        }
        w.key("entries")
        w.beginArray()
        var lastDate: Date?
        var lastDateText = ""
        for e in t.entries {
            w.lineBreak()
            w.beginObject()
            w.field("address", e.address)
            // Every entry of a capture has the same read time: format it once.
            if e.lastDate != lastDate {
                lastDate = e.lastDate
                lastDateText = TimeText.iso8601(e.lastDate)
            }
            w.field("lastDate", lastDateText)
            if let layout = e.layout {
                w.key("layout")
                layout.write(to: &w)
            }
            w.field("length", e.length)
            w.field("registerId", e.registerId)
            w.field("value", e.value)
            w.field("valueData", e.valueData)
            w.endObject()
        }
        w.endArray()
        if let host = t.host {
            w.field("host", host)
        }
        w.field("pageHash", t.pageHash)
        w.field("pageId", t.pageId)
        if let p = t.provenance {
            w.field("provenance", p)
        }
        w.field("schemaVersion", t.schemaVersion)
        w.key("skipped")
        w.beginArray()
        for s in t.skipped {
            w.lineBreak()
            w.beginObject()
            w.field("address", s.address)
            w.field("reason", s.reason.rawValue)
            w.field("registerId", s.registerId)
            w.endObject()
        }
        w.endArray()
        w.key("source")
        w.beginObject()
        if let id = t.source.deviceId {
            w.field("deviceId", id)
        }
        w.field("endpoint", t.source.endpoint)
        w.key("identity")
        w.beginArray()
        for i in t.source.identity { i.write(to: &w) }
        w.endArray()
        w.field("unit", t.source.unit)
        w.endObject()
        w.field("version", t.version)
        w.endObject()
    }

    private static func describe(_ error: any Error) -> String {
        guard let e = error as? DecodingError else { return String(describing: error) }
        switch e {
        case .dataCorrupted(let c), .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c):
            let path = c.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return (path.isEmpty ? "" : "at \(path): ") + c.debugDescription
        @unknown default:
            return String(describing: e)
        }
    }
}

/// A template file that cannot be used: unreadable, wrong format, or checksum mismatch.
public struct TemplateFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}

