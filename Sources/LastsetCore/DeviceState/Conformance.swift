import Foundation

/// The pure comparison polling runs after each read of a page.
public enum Conformance {
    /// Compares the values `applied` wrote with `live` (one poll of the page), register by register by id.
    /// A register that reads another value is drift, whatever else failed to read; otherwise a register
    /// not read (or no longer on the page) makes the verdict unknown. Words are compared; with `page` a drifted
    /// register's expected value is its words decoded with the page as it is now (as its live value is), not
    /// the decoding recorded when it was applied.
    public static func compare(expected: [RecordedValue], live: [LiveValue], page: CompiledPage? = nil) -> ConformanceVerdict {
        guard !expected.isEmpty else { return .unknown("the applied template wrote no register") }
        let byId = Dictionary(live.map { ($0.registerId, $0) }, uniquingKeysWith: { a, _ in a })
        var drifted: [DriftedRegister] = []
        var unread: [String] = []
        for e in expected {
            guard let l = byId[e.registerId] else {
                unread.append("\(e.registerId) (no longer on the page)")
                continue
            }
            guard let data = l.valueData else {
                unread.append("\(e.registerId) (\(l.error ?? "not read"))")
                continue
            }
            if data.lowercased() != e.valueData.lowercased() && !withinBand(e, l, page: page) {
                drifted.append(
                    DriftedRegister(
                        registerId: e.registerId, address: e.address, expectedData: e.valueData,
                        expected: page.flatMap { decoded(e, on: $0) } ?? e.value, liveData: data, live: l.value))
            }
        }
        if !drifted.isEmpty { return .drifted(drifted) }
        if !unread.isEmpty {
            return .unknown("not read: " + unread.prefix(3).joined(separator: ", ") + (unread.count > 3 ? ", …" : ""))
        }
        return .conforms
    }

    /// Whether a live value that differs from the expected words lies within the register's band (docs/OVERRIDES.md):
    /// the page's tolerance now (the config's), else the one recorded when it was applied; never without one.
    static func withinBand(_ e: RecordedValue, _ l: LiveValue, page: CompiledPage?) -> Bool {
        let current = page.flatMap { p in p.position(of: e.registerId).map { p.tolerance(at: $0) } }
        guard let tolerance = current ?? e.origin?.tolerance, let expected = e.value.number, let live = l.value?.number
        else { return false }
        return tolerance.contains(live, around: expected)
    }

    /// The expected words decoded with the page's register, when it is still at that address with that length.
    private static func decoded(_ e: RecordedValue, on page: CompiledPage) -> RegisterValue? {
        guard let at = page.position(of: e.registerId), page.registers[at].address == e.address,
            let words = [UInt16](valueDataHex: e.valueData), words.count == page.registers[at].length
        else { return nil }
        return words.withUnsafeBufferPointer { RegisterCodec.decode($0, layout: page.layouts[at]) }
    }
}
