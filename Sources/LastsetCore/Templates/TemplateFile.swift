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
    public struct Summary: Sendable, Hashable {
        /// Fleet versions only: when and by which host it was archived.
        public var archivedAt: Date?
        public var host: String?
        public var pageId: String
        public var version: Int
        public var pageHash: String
        public var capturedAt: Date
        public var source: String
        public var entries: Int

        /// The summary of `template`.
        public init(_ template: Template) {
            archivedAt = template.archivedAt
            host = template.host
            pageId = template.pageId
            version = template.version
            pageHash = template.pageHash
            capturedAt = template.capturedAt
            source = template.source.deviceId ?? template.source.endpoint
            entries = template.entries.count
        }
    }

    /// Encodes a template with its summary and checksum.
    public static func encode(_ template: Template) -> Data {
        var body = JSONWriter(capacity: 64 + template.entries.count * 160)
        template.write(to: &body)
        var head = JSONWriter(capacity: 256)
        Summary(template).write(to: &head)
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
            throw TemplateFileError(reason: "checksum matches but the template does not decode: \(APICoding.describe(error))")
        }
        guard template.schemaVersion == Template.currentSchemaVersion else {
            throw TemplateFileError(reason: "schema version \(template.schemaVersion) is not supported")
        }
        return template
    }

    /// The checksum a file carries (`sha256:…`), after checking it matches the content.
    public static func checksum(_ data: Data) throws(TemplateFileError) -> String {
        _ = try verifiedParts(data)
        return "sha256:"
            + String(decoding: data[data.startIndex + prefix.count..<data.startIndex + prefix.count + 64], as: UTF8.self)
    }

    /// The summary of a file, after checking its checksum (the entries are not decoded).
    public static func summary(_ data: Data) throws(TemplateFileError) -> Summary {
        let parts = try verifiedParts(data)
        do {
            return try APICoding.decoder().decode(Summary.self, from: parts.summary)
        } catch {
            throw TemplateFileError(reason: "unreadable summary: \(APICoding.describe(error))")
        }
    }
}

/// A template file that cannot be used: unreadable, wrong format, or checksum mismatch.
public struct TemplateFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}

extension TemplateFile.Summary: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = TemplateFile.Summary(Template.placeholder)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("archivedAt", &r.archivedAt)
        try f.field("capturedAt", &r.capturedAt)
        try f.field("entries", &r.entries)
        try f.field("host", &r.host)
        try f.field("pageHash", &r.pageHash)
        try f.field("pageId", &r.pageId)
        try f.field("source", &r.source)
        try f.field("version", &r.version)
    }
}
