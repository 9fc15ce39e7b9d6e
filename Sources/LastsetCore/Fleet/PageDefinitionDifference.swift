import LastsetFormats

/// How this host's definition of a page differs from another's (the fleet's): register by register, each field
/// the page hash covers (`RegisterDefinition.canonicalFields`), and the page's own fields (title, identity, steps,
/// "not set" convention, register order). Pure: two definitions in, the differences out, in page order.
public struct PageDefinitionDifference: Codable, Sendable, Hashable {
    /// The registers that differ: only here, only there, or with fields that differ.
    public var registers: [RegisterDifference]
    /// The page's own fields that differ (`title`, `identity`, `beforeWrite`, `afterWrite`, `unsetStyle`,
    /// `identityObjects`, and `order` when both have the same registers in another write order).
    public var page: [FieldDifference]

    /// Whether the two hash alike (nothing differs that a version depends on).
    public var isEmpty: Bool { registers.isEmpty && page.isEmpty }

    /// The differences from `here` to `there`.
    public init(here: PageDefinition, there: PageDefinition) {
        let hereIndex = Dictionary(here.registers.map { ($0.registerId, $0) }, uniquingKeysWith: { a, _ in a })
        let thereIndex = Dictionary(there.registers.map { ($0.registerId, $0) }, uniquingKeysWith: { a, _ in a })
        var registers: [RegisterDifference] = []
        for r in here.registers {
            guard let other = thereIndex[r.registerId] else {
                registers.append(RegisterDifference(registerId: r.registerId, presence: .onlyHere, fields: []))
                continue
            }
            let fields = RegisterDefinition.canonicalFields.compactMap { field -> FieldDifference? in
                guard Self.canonical(r, field) != Self.canonical(other, field) else { return nil }
                return FieldDifference(field: field, here: Self.shown(r, field), there: Self.shown(other, field))
            }
            if !fields.isEmpty { registers.append(RegisterDifference(registerId: r.registerId, presence: .both, fields: fields)) }
        }
        for r in there.registers where hereIndex[r.registerId] == nil {
            registers.append(RegisterDifference(registerId: r.registerId, presence: .onlyThere, fields: []))
        }
        self.registers = registers
        var page: [FieldDifference] = []
        func compare(_ field: String, _ a: String?, _ b: String?) {
            if a != b { page.append(FieldDifference(field: field, here: a, there: b)) }
        }
        compare("title", here.title, there.title)
        compare("unsetStyle", here.unsetStyle?.rawValue, there.unsetStyle?.rawValue)
        compare("identity", Self.json(here.identity), Self.json(there.identity))
        compare("identityObjects", Self.json(here.identityObjects), Self.json(there.identityObjects))
        compare("beforeWrite", Self.json(here.beforeWrite), Self.json(there.beforeWrite))
        compare("afterWrite", Self.json(here.afterWrite), Self.json(there.afterWrite))
        let (ids, otherIds) = (here.registers.map(\.registerId), there.registers.map(\.registerId))
        if ids != otherIds && Set(ids) == Set(otherIds) {
            page.append(FieldDifference(field: "order", here: ids.joined(separator: ", "), there: otherIds.joined(separator: ", ")))
        }
        self.page = page
    }

    /// One field of a register as the page hash sees it (nil when not declared).
    static func canonical(_ r: RegisterDefinition, _ field: String) -> String? {
        var w = JSONWriter(capacity: 64)
        r.writeCanonical(to: &w, fields: [field])
        let text = String(decoding: w.bytes, as: UTF8.self)
        // `{"field":value}` → `value`; `{}` → nil.
        guard text.count > 2, let colon = text.firstIndex(of: ":") else { return nil }
        return String(text[text.index(after: colon)..<text.index(before: text.endIndex)])
    }

    /// One field of a register as people read it: numbers as the config writes them (the hash's form writes them
    /// as doubles), the rest in the hash's form.
    static func shown(_ r: RegisterDefinition, _ field: String) -> String? {
        switch field {
        case "min": return r.min?.description
        case "max": return r.max?.description
        case "enum": return r.enum.map { "[" + $0.map(\.description).joined(separator: ", ") + "]" }
        default: return canonical(r, field)
        }
    }

    static func json<T: Encodable>(_ value: T?) -> String? {
        guard let value, let data = try? APICoding.encoder().encode(value) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// `heating.energy: wordOrder "big" → "little"; heating.limit: only here` — one line, for health and the CLI.
    public var summary: String {
        let parts =
            registers.map(\.description) + page.map { "page \($0.field): \($0.here ?? "none") → \($0.there ?? "none")" }
        return parts.joined(separator: "; ")
    }
}

/// One register that differs between two definitions of a page.
public struct RegisterDifference: Codable, Sendable, Hashable, CustomStringConvertible {
    public var registerId: String
    /// Where it is.
    public var presence: Presence
    /// The fields that differ (when on both).
    public var fields: [FieldDifference]

    /// Where a register is.
    public enum Presence: String, Codable, Sendable, Hashable {
        /// On this host's page only.
        case onlyHere = "only-here"
        /// On the other definition only.
        case onlyThere = "only-there"
        /// On both, some fields differing.
        case both
    }

    /// A difference.
    public init(registerId: String, presence: Presence, fields: [FieldDifference]) {
        self.registerId = registerId
        self.presence = presence
        self.fields = fields
    }

    /// `heating.energy: wordOrder "big" → "little"`, `heating.limit: only here`.
    public var description: String {
        switch presence {
        case .onlyHere: return "\(registerId): only here"
        case .onlyThere: return "\(registerId): only in the fleet's"
        case .both:
            return "\(registerId): "
                + fields.map { "\($0.field) \($0.here ?? "none") → \($0.there ?? "none")" }.joined(separator: ", ")
        }
    }
}

/// One field that differs: its value here and there (nil: not declared).
public struct FieldDifference: Codable, Sendable, Hashable {
    public var field: String
    public var here: String?
    public var there: String?

    /// A difference.
    public init(field: String, here: String?, there: String?) {
        self.field = field
        self.here = here
        self.there = there
    }
}
