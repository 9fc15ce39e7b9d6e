/// What identifies the machine behind a configured device, as read at one (re)connection: the parts that say which
/// kind of machine it is (model: a model register, FC43 ProductCode; each with whether its accepted-revision pattern
/// held) and the parts that say which one (instance: a serial number, a private FC43 object). Values are the raw bytes
/// in hex (upper case), compared as bytes.
public struct MachineFingerprint: Hashable, Sendable, Codable {
    /// Model identity: name → value hex.
    public var model: [String: String]
    /// Names of model parts whose pattern (`match`, an accepted revision) the value does not meet.
    public var refusedRevisions: Set<String>
    /// Instance identity: name → value hex.
    public var instance: [String: String]

    /// Sets every field.
    public init(model: [String: String], instance: [String: String] = [:], refusedRevisions: Set<String> = []) {
        self.model = model
        self.instance = instance
        self.refusedRevisions = refusedRevisions
    }
}

/// One applied page as a (re)connection finds it: the words the last verified replay wrote, what the registers hold
/// now, each register's "not set" patterns, and the page's reset marker when it declares one.
public struct AppliedPageReading: Hashable, Sendable {
    /// The page.
    public var pageId: String
    /// registerId → the words the applied version wrote.
    public var applied: [String: [UInt16]]
    /// registerId → the words read now (absent: not read).
    public var live: [String: [UInt16]]
    /// registerId → the words that mean "not set" for it.
    public var unset: [String: [[UInt16]]]
    /// The page's declared reset marker: true when it says "back at factory values", nil when none is declared.
    public var resetMarker: Bool?

    /// Sets every field.
    public init(
        pageId: String, applied: [String: [UInt16]], live: [String: [UInt16]], unset: [String: [[UInt16]]] = [:],
        resetMarker: Bool? = nil
    ) {
        self.pageId = pageId
        self.applied = applied
        self.live = live
        self.unset = unset
        self.resetMarker = resetMarker
    }
}

extension AppliedPageReading {
    /// The reading of `page` as one poll found it: the words `applied` wrote, the `live` values read (a register
    /// without words: not read), each applied register's "not set" patterns from the page as compiled now (a
    /// NaN a float's pattern accepts is given as the words read), and what the page's reset marker says (when it
    /// declares one and its register was read). Registers no longer on the page are left out.
    public init(page: CompiledPage, applied: AppliedTemplate, live: [LiveValue]) {
        var (written, now, unset) = ([String: [UInt16]](), [String: [UInt16]](), [String: [[UInt16]]]())
        let liveById = Dictionary(live.map { ($0.registerId, $0) }, uniquingKeysWith: { a, _ in a })
        for entry in applied.entries {
            guard let register = page.register(entry.registerId), let words = [UInt16](valueDataHex: entry.valueData)
            else { continue }
            written[entry.registerId] = words
            var patterns = register.unset.words
            if let data = liveById[entry.registerId]?.valueData, let read = [UInt16](valueDataHex: data) {
                now[entry.registerId] = read
                if register.unset.anyNaN, register.unset.matches(read) { patterns.append(read) }
            }
            unset[entry.registerId] = patterns
        }
        // The declared marker, from its register as read now (not read: the marker says nothing).
        let marker = page.resetMarker.flatMap { m in
            m.says(liveById[m.registerId]?.valueData.flatMap { [UInt16](valueDataHex: $0) })
        }
        self.init(pageId: page.id, applied: written, live: now, unset: unset, resetMarker: marker)
    }
}

extension AppliedPageReading {
    /// Registers that hold neither what was applied nor a "not set" value (someone set them), and registers not
    /// read (`id (not read)`): what keeps a restore from being automatic. A page whose reset marker says it is at
    /// factory values holds the factory's values, nobody's change: only registers not read are named.
    public var setElsewhere: [String] {
        applied.keys.sorted().compactMap { id in
            guard let words = live[id] else { return id + " (not read)" }
            if resetMarker == true { return nil }
            return words == applied[id] || (unset[id]?.contains(words) ?? false) ? nil : id
        }
    }
}
