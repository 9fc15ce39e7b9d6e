/// The one decision "does this template entry still fit this page", made the same way by capture, every
/// import (template file, iOS archive), fleet adoption, replay, dry run and diff, and conformance.
///
/// Per entry, in this order:
/// 1. its register must still be on the page (an entry whose register is gone is *left out*: not written,
///    the rest of the template still fits) and appear once;
/// 2. address and length must be the page's;
/// 3. the register's layout (type, word order, byte order, "not set" patterns) must be the one recorded in the
///    entry at capture — an entry from before layouts were recorded fits only the very page definition it was
///    captured against (its `pageHash`);
/// 4. `valueData` must be exactly the register's bytes of hex;
/// 5. the words must be archivable under the current declaration (`RegisterClassifier`: cloned, writable, set,
///    within the value rules);
/// 6. `value` must be the decoding of `valueData` under that layout (`value` is only a readable view: an
///    edited file whose two disagree would show one value and write another).
///
/// Any refused entry refuses the template for this page; left-out entries do not. The decision is pure: the
/// template and the page in, a verdict per entry out.
public struct TemplateAdmission: Sendable, Hashable {
    /// One verdict per template entry, in the template's order.
    public var verdicts: [EntryVerdict]
    /// Set when the template is of another page (then every entry is refused as well).
    public var otherPage: String?
    /// Set when the template is another fleet host's version captured against another definition of the page than
    /// this host's: refused whatever its entries (they are still judged, for what a listing shows).
    public var otherDefinition: OtherDefinition?
    /// The page the decision was made for.
    public var pageId: String

    /// Another host's version captured against another definition of the page.
    public struct OtherDefinition: Sendable, Hashable {
        /// The host whose version it is, and the version.
        public var host: String
        public var versionId: String
        /// The page hash it was captured against, and this host's.
        public var templateHash: String
        public var pageHash: String
    }

    /// Decides every entry of `template` against `page`. `localHost` is this host's fleet name: a version of
    /// another host (its `host`) is written here only under the very definition it was captured against (its page
    /// hash is this page's) — a host whose page differs takes the fleet's definition first. nil: the template is
    /// judged as this host's own (no fleet, or an import, which makes it this host's version).
    public static func admit(_ template: Template, to page: CompiledPage, localHost: String?) -> TemplateAdmission {
        var out = TemplateAdmission(verdicts: [], otherPage: nil, otherDefinition: nil, pageId: page.id)
        out.verdicts.reserveCapacity(template.entries.count)
        if template.pageId != page.id {
            out.otherPage = template.pageId
            for e in template.entries {
                out.verdicts.append(.refused(EntryRefusal(registerId: e.registerId, reason: .otherPage(template.pageId))))
            }
            return out
        }
        let samePage = template.pageHash == page.hash
        if let localHost, let host = template.host, host != localHost, !samePage {
            out.otherDefinition = OtherDefinition(
                host: host, versionId: template.versionId.id, templateHash: template.pageHash, pageHash: page.hash)
        }
        var taken = [Bool](repeating: false, count: page.registers.count)
        var seenGone = Set<String>()
        var hint = 0
        for entry in template.entries {
            guard let at = page.position(of: entry.registerId, hint: hint) else {
                if seenGone.insert(entry.registerId).inserted {
                    out.verdicts.append(.leftOut(EntryRefusal(registerId: entry.registerId, reason: .notOnPage(page.id))))
                } else {
                    out.verdicts.append(.refused(EntryRefusal(registerId: entry.registerId, reason: .repeated)))
                }
                continue
            }
            guard !taken[at] else {
                out.verdicts.append(.refused(EntryRefusal(registerId: entry.registerId, reason: .repeated)))
                continue
            }
            taken[at] = true
            hint = at + 1
            out.verdicts.append(verdict(entry, page.registers[at], position: at, samePage: samePage, template, page))
        }
        return out
    }

    /// The verdict of one entry whose register is at `position` of the page.
    private static func verdict(
        _ entry: TemplateEntry, _ register: CompiledRegister, position: Int, samePage: Bool, _ template: Template,
        _ page: CompiledPage
    ) -> EntryVerdict {
        func refuse(_ reason: EntryRefusal.Reason) -> EntryVerdict {
            .refused(EntryRefusal(registerId: entry.registerId, reason: reason))
        }
        let def = register.definition
        guard def.address == entry.address, def.length == entry.length else {
            return refuse(.moved(address: entry.address, length: entry.length, pageAddress: def.address, pageLength: def.length))
        }
        let current = EntryLayout(register)
        if let recorded = entry.layout {
            let changes = recorded.changes(to: current)
            guard changes.isEmpty else { return refuse(.layoutChanged(changes)) }
        } else if !samePage {
            return refuse(.layoutNotRecorded(templateHash: template.pageHash, pageHash: page.hash))
        }
        guard entry.valueData.utf8.count == def.length * 4, let words = entry.hexWords, words.count == def.length else {
            return refuse(.malformedData(valueData: entry.valueData, byteCount: def.length * 2))
        }
        let verdict = RegisterClassifier.classify(words, register)
        guard verdict == .archive else { return refuse(.verdict(verdict, value: RegisterCodec.decode(words, as: def))) }
        let decoded = words.withUnsafeBufferPointer { RegisterCodec.decode($0, layout: current.decoding) }
        guard entry.value.isSameValue(as: decoded) else {
            return refuse(.valueMismatch(stated: entry.value, decoded: decoded, valueData: entry.valueData))
        }
        return .admitted(position: position, value: decoded)
    }

    /// The refused entries (an entry of a template of another page, a layout change, a bad value…).
    public var refusals: [EntryRefusal] {
        verdicts.compactMap { if case .refused(let r) = $0 { return r } else { return nil } }
    }

    /// The entries left out because their register is no longer on the page.
    public var leftOut: [EntryRefusal] {
        verdicts.compactMap { if case .leftOut(let r) = $0 { return r } else { return nil } }
    }

    /// Whether the template may be replayed (and archived) for this page: no entry refused.
    public var isAdmissible: Bool {
        otherPage == nil && otherDefinition == nil && !verdicts.contains { if case .refused = $0 { true } else { false } }
    }

    /// Every refusal in one line: `a: …; b: …` (the template's page instead when it is another; another host's
    /// definition last when it is one).
    public var refusalText: String {
        if let otherPage { return "template is for page \"\(otherPage)\", not \"\(pageId)\"" }
        let entries = Self.text(refusals)
        guard let definitionText else { return entries }
        return entries.isEmpty ? definitionText : entries + "; " + definitionText
    }

    /// Why another host's version is not written here, when it is one captured against another definition.
    public var definitionText: String? {
        otherDefinition.map {
            "version \($0.versionId) of \($0.host) was captured against another definition of page \"\(pageId)\": another host's version is written here only under that definition (lastset fleet page \(pageId) --take)"
        }
    }

    /// Refusals in one line, `a: …; b: …`; entries refused only for having no recorded layout (a whole old
    /// template, usually) are named together once.
    public static func text(_ refusals: [EntryRefusal]) -> String {
        var parts: [String] = []
        var unrecorded: [String] = []
        var unrecordedReason: EntryRefusal.Reason?
        for r in refusals {
            if case .layoutNotRecorded = r.reason, unrecordedReason == nil || unrecordedReason == r.reason {
                if unrecorded.isEmpty { parts.append("") }  // its place in the line
                unrecordedReason = r.reason
                unrecorded.append(r.registerId)
            } else {
                parts.append(r.description)
            }
        }
        if let reason = unrecordedReason, let at = parts.firstIndex(of: "") {
            let shown =
                unrecorded.count > 5
                ? unrecorded.prefix(5).joined(separator: ", ") + " and \(unrecorded.count - 5) more"
                : unrecorded.joined(separator: ", ")
            parts[at] = EntryRefusal(registerId: shown, reason: reason).description
        }
        return parts.joined(separator: "; ")
    }
}

/// The admission of one template entry.
public enum EntryVerdict: Sendable, Hashable {
    /// Fits: its register is at `position` of the page, and `value` is its words decoded with the page.
    case admitted(position: Int, value: RegisterValue)
    /// Its register is no longer on the page: not written; the rest of the template still fits.
    case leftOut(EntryRefusal)
    /// Does not fit the page: the template is refused for it.
    case refused(EntryRefusal)
}

/// Why a template entry does not fit the page, naming the register and quoting what differs.
public struct EntryRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reasons.
    public enum Reason: Sendable, Hashable {
        /// The template is of another page.
        case otherPage(String)
        /// The register is not on the page (any more).
        case notOnPage(String)
        /// The register appears twice in the template.
        case repeated
        /// The register's address or length differ from the template's.
        case moved(address: Int, length: Int, pageAddress: Int, pageLength: Int)
        /// The register's layout changed since capture.
        case layoutChanged([LayoutChange])
        /// A template from before layouts were recorded, and the page definition changed since its capture.
        case layoutNotRecorded(templateHash: String, pageHash: String)
        /// `valueData` is not exactly the register's bytes of hex.
        case malformedData(valueData: String, byteCount: Int)
        /// The words would not be archived under the current declaration (with their value).
        case verdict(RegisterVerdict, value: RegisterValue)
        /// `value` is not the decoding of `valueData`.
        case valueMismatch(stated: RegisterValue, decoded: RegisterValue, valueData: String)
    }

    /// The template entry's register.
    public var registerId: String
    public var reason: Reason

    /// A refusal from its parts.
    public init(registerId: String, reason: Reason) {
        self.registerId = registerId
        self.reason = reason
    }

    /// e.g. `heating.energy: layout changed since capture: wordOrder little → big`.
    public var description: String {
        let why: String
        switch reason {
        case .otherPage(let p): why = "the template is of page \"\(p)\""
        case .notOnPage(let p): why = "not a register of page \"\(p)\" any more"
        case .repeated: why = "appears twice in the template"
        case .moved(let a, let l, let pa, let pl): why = "template has address \(a) length \(l), page has \(pa) length \(pl)"
        case .layoutChanged(let changes):
            why = "layout changed since capture: " + changes.map(\.description).joined(separator: ", ")
        case .layoutNotRecorded(let t, let p):
            why =
                "the template records no register layout (made before layouts were kept) and the page definition changed since capture (template \(t), page now \(p)): capture it again"
        case .malformedData(let data, let n): why = "valueData \"\(data)\" is not \(n) bytes of hex"
        case .verdict(.skip(.readOnly), _): why = "read-only, never written"
        case .verdict(.skip(.notCloned), _): why = "clone: false, never written"
        case .verdict(.skip(.unset), _): why = "holds the \"not set\" default, never written"
        case .verdict(.invalid(let rule), let value): why = "value \(value) breaks \(rule)"
        case .verdict(.archive, _): why = "archived"
        case .valueMismatch(let stated, let decoded, let data):
            why = "value \(stated) is not what valueData \(data) holds (\(decoded)): value and valueData disagree"
        }
        return "\(registerId): \(why)"
    }
}

extension RegisterValue {
    /// Whether this value (as a template file states it) is `decoded`, the decoding of the words: the same
    /// number, text or bytes whatever case a number is held in (a file's `90` reads as unsigned where an s16
    /// decodes as signed; `90.0` may read back as a whole number). An integer register's value must be that
    /// integer exactly; a float register's is read as the nearest Double, as its file writes it.
    public func isSameValue(as decoded: RegisterValue) -> Bool {
        switch (self, decoded) {
        case (.unsigned(let a), .unsigned(let b)): return a == b
        case (.signed(let s), .unsigned(let u)): return s >= 0 && UInt64(s) == u
        case (.float(let d), .unsigned(let u)): return UInt64(exactly: d) == u
        case (.signed(let a), .signed(let b)): return a == b
        case (.unsigned(let u), .signed(let s)): return s >= 0 && UInt64(s) == u
        case (.float(let d), .signed(let s)): return Int64(exactly: d) == s
        case (.float(let a), .float(let b)): return a == b
        case (.unsigned(let u), .float(let d)): return Double(u) == d
        case (.signed(let s), .float(let d)): return Double(s) == d
        case (.text(let a), .text(let b)): return a == b
        case (.bytes(let a), .bytes(let b)): return a == b
        default: return false
        }
    }
}
