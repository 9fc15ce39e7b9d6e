import Foundation
import LastsetFormats

/// What a capture archives for one page: the validated values of a reference machine, in page order.
public struct Template: Codable, Sendable, Hashable {
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

/// The device a template was captured from.
public struct TemplateSource: Codable, Sendable, Hashable {
    /// Configured device id, nil for an ad-hoc endpoint.
    public var deviceId: String?
    public var endpoint: String
    public var unit: Int
    /// Identity register values read at capture time, in page order.
    public var identity: [IdentityValue]

    public init(deviceId: String?, endpoint: String, unit: Int, identity: [IdentityValue]) {
        self.deviceId = deviceId
        self.endpoint = endpoint
        self.unit = unit
        self.identity = identity
    }
}

/// One identity register's value.
public struct IdentityValue: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    /// Raw bytes as read, hex.
    public var valueData: String
    public var value: RegisterValue

    public init(registerId: String, address: Int, valueData: String, value: RegisterValue) {
        self.registerId = registerId
        self.address = address
        self.valueData = valueData
        self.value = value
    }

    /// Whether a target's identity register holds what the source held: compared as words, so how the hex
    /// is spelled (`5052532D`, or `5052532d` from another tool's file) never matters; an odd or
    /// non-hex `valueData` matches nothing.
    public func isHeld(by words: [UInt16]) -> Bool {
        valueData.utf8.count == words.count * 4 && [UInt16](valueDataHex: valueData) == words
    }
}

/// One register's archived value.
public struct TemplateEntry: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    /// Number of 16-bit registers.
    public var length: Int
    /// Raw bytes as read, hex (authoritative; `value` is a readable view of it).
    public var valueData: String {
        didSet { hexWords = [UInt16](valueDataHex: valueData) }
    }
    public var value: RegisterValue
    /// When valueData was read.
    public var lastDate: Date
    /// `valueData`'s words, decoded once when the entry is made, decoded or its `valueData` set (a
    /// replay checks and writes every entry's words: parsing the hex each time cost an array per entry
    /// per replay); nil when `valueData` is not even-length hex. Not part of the archived form.
    public private(set) var hexWords: [UInt16]?

    /// The register layout the entry was captured against; nil in a template from before layouts were
    /// kept per entry (then it is admissible only on the very page definition it was captured against:
    /// `TemplateAdmission`).
    public var layout: EntryLayout?

    public init(
        registerId: String, address: Int, length: Int, valueData: String, value: RegisterValue, lastDate: Date,
        layout: EntryLayout? = nil
    ) {
        self.registerId = registerId
        self.address = address
        self.length = length
        self.valueData = valueData
        self.value = value
        self.lastDate = lastDate
        self.layout = layout
        hexWords = [UInt16](valueDataHex: valueData)
    }

    /// The entry a capture (or an import that reads values) makes of a register's words: its `value` is their
    /// decoding and its layout the register's, so the two can never disagree.
    public init(register: CompiledRegister, words: [UInt16], lastDate: Date) {
        let layout = EntryLayout(register)
        self.init(
            registerId: register.registerId, address: register.address, length: register.length,
            valueData: words.hexString,
            value: words.withUnsafeBufferPointer { RegisterCodec.decode($0, layout: layout.decoding) },
            lastDate: lastDate, layout: layout)
    }

    private enum CodingKeys: String, CodingKey {
        case registerId, address, length, valueData, value, lastDate, layout
    }

    /// Decodes the archived fields and decodes `valueData`'s words once.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            registerId: try c.decode(String.self, forKey: .registerId), address: try c.decode(Int.self, forKey: .address),
            length: try c.decode(Int.self, forKey: .length), valueData: try c.decode(String.self, forKey: .valueData),
            value: try c.decode(RegisterValue.self, forKey: .value), lastDate: try c.decode(Date.self, forKey: .lastDate),
            layout: try c.decodeIfPresent(EntryLayout.self, forKey: .layout))
    }

    /// The words to write, from valueData (empty when it is not even-length hex).
    public var words: [UInt16] { hexWords ?? [] }
}

/// Why a register is not in a template.
public enum SkipReason: String, Codable, Sendable, Hashable {
    /// Still at its "not set" default.
    case unset
    /// `clone: false` (identity or communication register).
    case notCloned
    /// `access: ro`.
    case readOnly
}

/// A register left out of a template.
public struct SkippedRegister: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    public var reason: SkipReason

    public init(registerId: String, address: Int, reason: SkipReason) {
        self.registerId = registerId
        self.address = address
        self.reason = reason
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
