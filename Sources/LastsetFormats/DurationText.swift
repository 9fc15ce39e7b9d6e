/// Parses and prints durations written as in configs: "500ms", "10s", "2m", "1h", "0".
public enum DurationText {
    /// nil when the text is not a non-negative integer followed by ms, s, m or h (or a bare 0).
    public static func parse(_ text: String) -> Duration? {
        if text == "0" { return .zero }
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        for (suffix, millis) in units where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count)
            // "ms" also ends in "s": make sure "5ms" is not read as "5m" + "s".
            if suffix == "s" && number.hasSuffix("m") { continue }
            guard !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber),
                let n = Int64(number), n <= 365 * 24 * 3_600_000 / millis
            else { return nil }
            return .milliseconds(n * millis)
        }
        return nil
    }

    /// Milliseconds in a duration (rounded down).
    public static func milliseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
    }
}
