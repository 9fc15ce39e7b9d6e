/// What the machine behind a configured device is, at a (re)connection or identity poll (issue 23, part 3).
public enum MachineVerdict: Hashable, Sendable {
    /// Its identity could not be read: nothing is decided (no restore, no alert beyond the read failure).
    case unreadable
    /// No identity was known for the device yet: this one is recorded as what it is — never its values as the truth.
    case firstSeen
    /// Another kind of machine (a model part differs, or its revision is not accepted): refuse and alert.
    case anotherModel(differs: [String])
    /// The same model and an accepted revision, another instance (serial number, FC43 identity): a replacement.
    case replaced(changed: [String])
    /// The same machine, every applied register at its "not set" value (or a reset marker says so), per page.
    case factoryReset(pages: [String])
    /// The same machine, applied registers changed by someone else: page → registers.
    case changedElsewhere(registers: [String: [String]])
    /// The same machine holding what was applied.
    case sameAndConforming
}

/// The one decision behind "Data Storage for Modbus": which `MachineVerdict` a fingerprint and the applied pages'
/// readings mean. Pure and table-tested (`ReconnectClassifierTests`); the order is the order of the cases above.
public enum ReconnectClassifier {
    /// The verdict on `now` against the device's `known` fingerprint, with its applied pages read now.
    public static func classify(known: MachineFingerprint?, now: MachineFingerprint?, pages: [AppliedPageReading])
        -> MachineVerdict
    {
        guard let now else { return .unreadable }
        guard let known else { return .firstSeen }
        let modelParts = Set(known.model.keys).union(now.model.keys)
        let differs = modelParts.filter { known.model[$0] != now.model[$0] }.union(now.refusedRevisions)
        if !differs.isEmpty { return .anotherModel(differs: differs.sorted()) }
        let instanceParts = Set(known.instance.keys).union(now.instance.keys)
        let changed = instanceParts.filter { known.instance[$0] != now.instance[$0] }
        if !changed.isEmpty { return .replaced(changed: changed.sorted()) }
        let reset = pages.filter(isAtFactoryValues).map(\.pageId)
        if !reset.isEmpty { return .factoryReset(pages: reset.sorted()) }
        var drifted: [String: [String]] = [:]
        for page in pages {
            let registers = page.applied.keys.filter { id in page.live[id].map { $0 != page.applied[id] } ?? false }
            if !registers.isEmpty { drifted[page.pageId] = registers.sorted() }
        }
        return drifted.isEmpty ? .sameAndConforming : .changedElsewhere(registers: drifted)
    }

    /// A page is at factory values when its reset marker (read) says so and the page does not hold every value
    /// applied (a restore the marker outlives is done: never restored again for it), or — without a marker read —
    /// when it has applied registers, every one was read, and each holds one of its "not set" patterns (a page the
    /// replay wrote nothing to tells nothing).
    static func isAtFactoryValues(_ page: AppliedPageReading) -> Bool {
        if let marker = page.resetMarker {
            return marker && !page.applied.keys.allSatisfy { page.live[$0] == page.applied[$0] }
        }
        guard !page.applied.isEmpty else { return false }
        return page.applied.keys.allSatisfy { id in
            guard let words = page.live[id] else { return false }
            return page.unset[id]?.contains(words) ?? false
        }
    }
}
