import Foundation
import LastsetFormats

/// What a capture archives for one page: the validated values of a reference machine, in page order.
public struct Template: Sendable, Hashable {
    /// Format version of this structure.
    public var schemaVersion: Int
    public var pageId: String
    /// `PageDefinition.hash` of the page the template was captured against.
    public var pageHash: String
    /// Archive version number (1, 2, …), assigned when archived.
    public var version: Int
    public var capturedAt: Date
    /// Who asked for the capture (uid or token id).
    public var capturedBy: String?
    public var source: TemplateSource
    /// The values to replay, in page (write) order.
    public var entries: [TemplateEntry]
    /// Registers left out, and why.
    public var skipped: [SkippedRegister]
    /// Where the values came from when they were not read by a capture, e.g.
    /// "imported from iOS archive Heating" (nil for a capture).
    public var provenance: String?
    /// The fleet host that archived this version (nil without a fleet): with `version`, its identity.
    public var host: String?
    /// When `host` archived it (nil without a fleet): orders versions the same on every host.
    public var archivedAt: Date?

    /// Current `schemaVersion`.
    public static let currentSchemaVersion = 1

    public init(
        pageId: String, pageHash: String, version: Int, capturedAt: Date, capturedBy: String?,
        source: TemplateSource, entries: [TemplateEntry], skipped: [SkippedRegister], provenance: String? = nil,
        host: String? = nil, archivedAt: Date? = nil
    ) {
        self.schemaVersion = Template.currentSchemaVersion
        self.pageId = pageId
        self.pageHash = pageHash
        self.version = version
        self.capturedAt = capturedAt
        self.capturedBy = capturedBy
        self.source = source
        self.entries = entries
        self.skipped = skipped
        self.provenance = provenance
        self.host = host
        self.archivedAt = archivedAt
    }

    /// The version's identity (number, host, archive time).
    public var versionId: TemplateVersion { TemplateVersion(number: version, host: host, archivedAt: archivedAt) }
}

extension Template {
    /// The template with its times rounded to the millisecond, as its file keeps them.
    public func roundedToMilliseconds() -> Template {
        func round(_ d: Date) -> Date { Date(timeIntervalSince1970: (d.timeIntervalSince1970 * 1000).rounded() / 1000) }
        var t = self
        t.capturedAt = round(capturedAt)
        t.archivedAt = archivedAt.map(round)
        var last: (Date, Date)?
        for i in t.entries.indices {
            let d = t.entries[i].lastDate
            if let (from, to) = last, from == d {
                t.entries[i].lastDate = to
            } else {
                let r = round(d)
                last = (d, r)
                t.entries[i].lastDate = r
            }
        }
        return t
    }
}

extension PageDefinition {
    /// SHA-256 of the page's canonical JSON (sorted keys, every field): changes whenever anything that
    /// shapes a template changes. Written with `JSONWriter`. `CompiledPage` computes it once per load.
    public var hash: String { hash(unsetStyle: unsetStyle) }

    /// The hash with the "not set" convention in effect (a device's, when the page declares none).
    func hash(unsetStyle style: UnsetStyle?) -> String {
        var w = JSONWriter(capacity: 128 + registers.count * 96)
        w.beginObject()
        if let steps = afterWrite {
            w.key("afterWrite")
            Self.write(steps, to: &w)
        }
        if let steps = beforeWrite {
            w.key("beforeWrite")
            Self.write(steps, to: &w)
        }
        w.field("id", id)
        if let identity {
            w.key("identity")
            w.beginArray()
            for i in identity {
                i.definition.writeCanonical(to: &w, fields: ["address", "byteOrder", "registerId", "type", "wordOrder"])
            }
            w.endArray()
        }
        // Only a page that names identification objects has the key: every other page keeps its hash.
        if let objects = identityObjects {
            w.key("identityObjects")
            w.beginArray()
            for o in objects {
                w.beginObject()
                if let match = o.match { w.field("match", match) }
                w.field("object", o.object.name)
                w.endObject()
            }
            w.endArray()
        }
        w.key("registers")
        w.beginArray()
        for r in registers { r.writeCanonical(to: &w) }
        w.endArray()
        if let title {
            w.field("title", title)
        }
        if let style {
            w.field("unsetStyle", style.rawValue)
        }
        w.endObject()
        return "sha256:" + SHA256.hex(w.bytes)
    }

    private static func write(_ steps: [WriteStep], to w: inout JSONWriter) {
        w.beginArray()
        for s in steps {
            w.beginObject()
            w.field("address", s.address)
            w.field("value", s.value)
            w.endObject()
        }
        w.endArray()
    }
}

extension RegisterDefinition {
    /// Every field, in key order, as `JSONEncoder` with sorted keys would write them (the field list
    /// is checked against the Codable form by a test, so a new field cannot be left out of the hash).
    /// Fields for people only (`description`, `factoryDefault`): they shape no template and no write, so
    /// editing them does not change the page hash.
    public static let documentationFields = ["description", "factoryDefault"]

    public static let canonicalFields = [
        "access", "address", "byteOrder", "clone", "enum", "max", "min", "name", "registerId", "scale", "type", "unit", "unset",
        "wordOrder",
    ]

    /// Writes the definition's canonical JSON (only `fields`, absent optionals left out).
    public func writeCanonical(to w: inout JSONWriter, fields: [String] = RegisterDefinition.canonicalFields) {
        w.beginObject()
        for field in fields {
            switch field {
            case "access":
                if let access {
                    w.field(dynamic: field, access.rawValue)
                }
            case "address":
                w.field(dynamic: field, address)
            case "byteOrder":
                if let byteOrder {
                    w.field(dynamic: field, byteOrder.rawValue)
                }
            case "clone":
                if let clone {
                    w.field(dynamic: field, clone)
                }
            case "enum":
                if let values = self.enum {
                    w.key(dynamic: field)
                    w.beginArray()
                    for v in values { w.number(v) }
                    w.endArray()
                }
            case "max":
                if let max {
                    w.key(dynamic: field)
                    w.number(max)
                }
            case "min":
                if let min {
                    w.key(dynamic: field)
                    w.number(min)
                }
            case "name":
                if let name {
                    w.field(dynamic: field, name)
                }
            case "registerId":
                w.field(dynamic: field, registerId)
            case "scale":
                if let scale {
                    w.key(dynamic: field)
                    w.double(scale)
                }
            case "type":
                w.field(dynamic: field, type.description)
            case "unit":
                if let unit {
                    w.field(dynamic: field, unit)
                }
            case "unset":
                if let unset {
                    w.field(dynamic: field, unset)
                }
            case "wordOrder":
                if let wordOrder {
                    w.field(dynamic: field, wordOrder.rawValue)
                }
            default: preconditionFailure("unknown register field \(field)")
            }
        }
        w.endObject()
    }
}

extension Template: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = Template(
        pageId: "", pageHash: "", version: 0, capturedAt: .distantPast, capturedBy: nil, source: .placeholder, entries: [],
        skipped: [])

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("archivedAt", &r.archivedAt)
        try f.field("capturedAt", &r.capturedAt)
        try f.field("capturedBy", &r.capturedBy)
        try f.lines("entries", &r.entries)
        try f.field("host", &r.host)
        try f.field("pageHash", &r.pageHash)
        try f.field("pageId", &r.pageId)
        try f.field("provenance", &r.provenance)
        try f.field("schemaVersion", &r.schemaVersion)
        try f.lines("skipped", &r.skipped)
        try f.field("source", &r.source)
        try f.field("version", &r.version)
    }
}
