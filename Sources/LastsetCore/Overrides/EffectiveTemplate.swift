/// A page's template as one device gets it: every register's `EffectiveValue`, in page (write) order — what the
/// replay writes and what rollout compares with what a device holds.
public enum EffectiveTemplate {
    /// One register's effective value, at its page position.
    public struct Entry: Sendable, Hashable {
        public var position: Int
        public var value: EffectiveValue
    }

    /// The effective entries from the template's admitted entries (page position → words, in any order), under
    /// the page's layer (`CompiledPage.layer`).
    public static func entries(admitted: [(position: Int, words: [UInt16])], page: CompiledPage) -> [Entry] {
        var template = [[UInt16]?](repeating: nil, count: page.registers.count)
        for a in admitted where a.position < template.count { template[a.position] = a.words }
        var out: [Entry] = []
        out.reserveCapacity(admitted.count)
        for (at, register) in page.registers.enumerated() {
            if let value = page.layer.effective(register, template: template[at]) { out.append(Entry(position: at, value: value)) }
        }
        return out
    }

    /// The effective entries of `template` on `page`; nil when the template is not admissible for it (`localHost`:
    /// as `TemplateAdmission.admit` takes it).
    public static func entries(of template: Template, on page: CompiledPage, localHost: String?) -> [Entry]? {
        let admission = TemplateAdmission.admit(template, to: page, localHost: localHost)
        guard admission.isAdmissible else { return nil }
        var admitted: [(position: Int, words: [UInt16])] = []
        for (entry, verdict) in zip(template.entries, admission.verdicts) {
            if case .admitted(let at, _) = verdict { admitted.append((at, entry.words)) }
        }
        return entries(admitted: admitted, page: page)
    }

    /// Whether a device that holds `applied` (registerId → words as hex) would be changed by these entries: a
    /// register written with other words, or a register written that it does not hold, or one it holds that is
    /// no longer written. Case of hex ignored.
    public static func changes(_ entries: [Entry], on page: CompiledPage, applied: [RecordedValue]) -> [String] {
        var held = Dictionary(applied.map { ($0.registerId, $0.valueData.uppercased()) }, uniquingKeysWith: { a, _ in a })
        var changed: [String] = []
        for e in entries {
            let id = page.registers[e.position].registerId
            if held.removeValue(forKey: id) != e.value.words.hexString { changed.append(id) }
        }
        return changed + held.keys.sorted()
    }
}
