import LastsetFormats
/// The register layout a template entry was captured against: everything that decides what its words
/// mean — the type (and so the length), the word and byte order, and the "not set" patterns. Recorded per
/// entry in the template, so an entry stays admissible on a page that only gained or lost other registers,
/// and is refused, naming what changed, when its own register's layout changed (`TemplateAdmission`).
///
/// Orders are the effective ones (an absent `wordOrder` is big), and `wordOrder` is nil where it does not
/// apply (one-register numbers, text and bytes): spelling out a default or a meaningless order in the
/// config does not change the layout.
public struct EntryLayout: Sendable, Hashable {
    /// The register's type (its length is `type.registerCount`).
    public var type: RegisterType
    /// Effective word order of a multi-register number; nil where word order does not apply.
    public var wordOrder: WordOrder?
    /// Effective byte order inside each word.
    public var byteOrder: ByteOrder
    /// The exact word sequences (wire order) that mean "not set".
    public var unset: [[UInt16]]
    /// Whether any NaN also means "not set" (SunSpec floats).
    public var unsetNaN: Bool

    /// A layout from its parts (`wordOrder` is normalised: nil where it does not apply).
    public init(type: RegisterType, wordOrder: WordOrder?, byteOrder: ByteOrder, unset: [[UInt16]], unsetNaN: Bool = false) {
        self.type = type
        self.wordOrder = type.isNumeric && type.registerCount > 1 ? (wordOrder ?? .big) : nil
        self.byteOrder = byteOrder
        self.unset = unset
        self.unsetNaN = unsetNaN
    }

    /// The layout of a compiled register (its definition and the page's "not set" convention).
    public init(_ register: CompiledRegister) {
        let d = register.definition
        self.init(
            type: d.type, wordOrder: d.wordOrder, byteOrder: d.byteOrder ?? .big, unset: register.unset.words,
            unsetNaN: register.unset.anyNaN)
    }

    /// How the entry's words decode under this layout.
    public var decoding: RegisterLayout { RegisterLayout(type: type, wordOrder: wordOrder, byteOrder: byteOrder) }

    /// What differs going from this layout (the template's) to `current` (the page's), field by field;
    /// empty when they are the same.
    public func changes(to current: EntryLayout) -> [LayoutChange] {
        var out: [LayoutChange] = []
        if type != current.type {
            out.append(LayoutChange(field: .type, from: type.description, to: current.type.description))
        }
        if wordOrder != current.wordOrder {
            out.append(
                LayoutChange(
                    field: .wordOrder, from: wordOrder?.rawValue ?? "(none)", to: current.wordOrder?.rawValue ?? "(none)"))
        }
        if byteOrder != current.byteOrder {
            out.append(LayoutChange(field: .byteOrder, from: byteOrder.rawValue, to: current.byteOrder.rawValue))
        }
        if unset != current.unset || unsetNaN != current.unsetNaN {
            out.append(LayoutChange(field: .unset, from: unsetText, to: current.unsetText))
        }
        return out
    }

    /// The "not set" patterns as one text: `FFFFFFFF`, `7F7FFFFF or FFFFFFFF`, `any NaN`.
    var unsetText: String {
        let words = unset.map(\.hexString)
        let all = words + (unsetNaN ? ["any NaN"] : [])
        return all.isEmpty ? "(none)" : all.joined(separator: " or ")
    }
}

extension EntryLayout: Codable {
    private enum CodingKeys: String, CodingKey {
        case byteOrder, type, unset, unsetNaN, wordOrder
    }

    /// `{"byteOrder":"big","type":"u32","unset":["FFFFFFFF"],"wordOrder":"little"}` (`unsetNaN` only when true).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let text = try c.decode(String.self, forKey: .type)
        guard let type = RegisterType(parsing: text) else {
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown register type \"\(text)\"")
        }
        let hex = try c.decode([String].self, forKey: .unset)
        var unset: [[UInt16]] = []
        for h in hex {
            guard let words = [UInt16](valueDataHex: h), h.utf8.count == words.count * 4 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .unset, in: c, debugDescription: "\"\(h)\" is not whole words of hex")
            }
            unset.append(words)
        }
        let wordOrder = try c.decodeIfPresent(WordOrder.self, forKey: .wordOrder)
        self.init(
            type: type, wordOrder: wordOrder, byteOrder: try c.decode(ByteOrder.self, forKey: .byteOrder), unset: unset,
            unsetNaN: try c.decodeIfPresent(Bool.self, forKey: .unsetNaN) ?? false)
        if wordOrder != nil && self.wordOrder == nil {
            throw DecodingError.dataCorruptedError(
                forKey: .wordOrder, in: c, debugDescription: "word order does not apply to \(type)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(byteOrder, forKey: .byteOrder)
        try c.encode(type.description, forKey: .type)
        try c.encode(unset.map(\.hexString), forKey: .unset)
        if unsetNaN { try c.encode(true, forKey: .unsetNaN) }
        try c.encodeIfPresent(wordOrder, forKey: .wordOrder)
    }

    /// Writes the Codable form (sorted keys).
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("byteOrder", byteOrder.rawValue)
        w.field("type", type.description)
        w.key("unset")
        w.beginArray()
        for u in unset { w.string(u.hexString) }
        w.endArray()
        if unsetNaN {
            w.field("unsetNaN", true)
        }
        if let wordOrder {
            w.field("wordOrder", wordOrder.rawValue)
        }
        w.endObject()
    }
}

/// One field of a register's layout that changed since a template was captured.
public struct LayoutChange: Sendable, Hashable, CustomStringConvertible {
    /// The layout fields.
    public enum Field: String, Sendable, Hashable {
        case type, wordOrder, byteOrder, unset
    }
    public var field: Field
    /// In the template (at capture).
    public var from: String
    /// On the page now.
    public var to: String

    /// A change from its parts.
    public init(field: Field, from: String, to: String) {
        self.field = field
        self.from = from
        self.to = to
    }

    /// e.g. `wordOrder little → big`.
    public var description: String { "\(field.rawValue) \(from) → \(to)" }
}
