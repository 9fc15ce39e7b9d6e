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

extension EntryLayout: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = EntryLayout(type: .u16, wordOrder: nil, byteOrder: .big, unset: [])

    /// `{"byteOrder":"big","type":"u32","unset":["FFFFFFFF"],"wordOrder":"little"}` (`unsetNaN` only when true).
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("byteOrder", &r.byteOrder)
        try f.field("type", &r.type)
        try f.field("unset", &r.unset, as: HexWordsList.self)
        try f.flag("unsetNaN", &r.unsetNaN)
        try f.field("wordOrder", &r.wordOrder)
    }

    /// The orders normalised as `init` does; a word order where none applies is refused.
    public mutating func decoded() throws(JSONFieldProblem) {
        let given = wordOrder
        self = EntryLayout(type: type, wordOrder: wordOrder, byteOrder: byteOrder, unset: unset, unsetNaN: unsetNaN)
        if given != nil && wordOrder == nil {
            throw JSONFieldProblem(key: "wordOrder", "word order does not apply to \(type)")
        }
    }
}

/// "Not set" patterns as JSON keeps them: one hex text of whole words each (`["FFFFFFFF"]`).
public enum HexWordsList: JSONFieldCodec {
    public static func form(_ value: [[UInt16]]) -> [String] { value.map(\.hexString) }

    /// The texts written one by one (a template writes a layout per entry).
    public static func write(_ value: [[UInt16]], to w: inout JSONWriter) {
        w.beginArray()
        for words in value { w.string(words.hexString) }
        w.endArray()
    }

    public static func value(_ form: [String]) throws(JSONFieldProblem) -> [[UInt16]] {
        var out: [[UInt16]] = []
        for h in form {
            guard let words = [UInt16](valueDataHex: h), h.utf8.count == words.count * 4 else {
                throw JSONFieldProblem("\"\(h)\" is not whole words of hex")
            }
            out.append(words)
        }
        return out
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
