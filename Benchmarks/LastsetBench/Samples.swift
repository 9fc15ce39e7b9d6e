import Foundation

/// Repeated measurements of one thing, in milliseconds.
struct Samples: Codable {
    /// Every run's time, in run order.
    var runsMs: [Double] = []

    /// Adds one run.
    mutating func add(_ duration: Duration) {
        runsMs.append(Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
    }

    /// Median (mean of the middle two for an even count); 0 when empty.
    var median: Double {
        let s = runsMs.sorted()
        guard !s.isEmpty else { return 0 }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
    /// Fastest run.
    var min: Double { runsMs.min() ?? 0 }
    /// Slowest run.
    var max: Double { runsMs.max() ?? 0 }

    /// "12.3 [11.9–13.0]" (ms).
    var text: String { runsMs.isEmpty ? "—" : "\(Format.ms(median)) [\(Format.ms(min))–\(Format.ms(max))]" }
}

/// Number formatting for the table.
enum Format {
    /// Milliseconds with a precision suited to their size.
    static func ms(_ v: Double) -> String {
        if v >= 1000 { return String(format: "%.0f", v) }
        if v >= 100 { return String(format: "%.1f", v) }
        if v >= 10 { return String(format: "%.2f", v) }
        return String(format: "%.3f", v)
    }
    /// A ratio like "1.07×".
    static func ratio(_ v: Double?) -> String { v.map { String(format: "%.2f×", $0) } ?? "—" }
}
