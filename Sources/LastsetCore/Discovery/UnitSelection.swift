/// The units a scan probes, from `--units` text: `1-247`, `3,17,42`, `1-10,42`. Every unit is in 1…247 (0 is
/// broadcast: never probed), each once, in increasing order.
public enum UnitSelection {
    /// Every unit a serial line can address.
    public static let all = Array(1...247)

    /// The units `text` names, or a message quoting the part that is wrong.
    public static func parse(_ text: String) -> Result<[Int], UnitSelectionError> {
        var units = Set<Int>()
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        for part in parts {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count), let low = Int(bounds[0]), let high = Int(bounds[bounds.count - 1]) else {
                return .failure(UnitSelectionError(text: text, part: String(part), reason: "expected N or N-M"))
            }
            guard (1...247).contains(low), (1...247).contains(high) else {
                return .failure(UnitSelectionError(text: text, part: String(part), reason: "units are 1…247 (0 is broadcast)"))
            }
            guard low <= high else {
                return .failure(UnitSelectionError(text: text, part: String(part), reason: "\(low) is greater than \(high)"))
            }
            units.formUnion(low...high)
        }
        return .success(units.sorted())
    }
}

/// A `--units` text that names no units.
public struct UnitSelectionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The whole text.
    public var text: String
    /// The part that is wrong.
    public var part: String
    /// Why.
    public var reason: String
    /// `bad units "1-300": "1-300": units are 1…247 (0 is broadcast)`.
    public var description: String { "bad units \"\(text)\": \"\(part)\": \(reason)" }
}
