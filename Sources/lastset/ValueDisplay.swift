import Foundation
import LastsetCore

/// How the CLI shows register values: scaled with their unit as the page definitions declare them
/// (`-150` with `scale: 0.1, unit: "°C"` → `-15.0 °C`), or raw (`--raw`, and for registers it knows nothing of).
/// An integer times its scale is exact (a u64 counter with `scale: 0.001` keeps every digit); a float shows
/// the digits its type holds (7 significant for f32, 15 for f64), never fewer decimals than its scale has and
/// never rounded to the scale's decimals: f32 2.5 with `scale: 1` is `2.5`, not `2`.
struct ValueDisplay: Sendable {
    /// A register's display rule.
    struct Rule: Sendable, Hashable {
        /// Multiplier applied to the raw number.
        var scale: Double?
        /// Shown after the value.
        var unit: String?
        /// Significant digits of a float register (7 for f32, 15 for f64); nil for integers.
        var floatDigits: Int?
    }

    /// `--raw`: the value as stored.
    var raw = false
    /// registerId → rule.
    var rules: [String: Rule] = [:]

    /// Rules from page definitions (the first page declaring a registerId wins).
    init(raw: Bool = false, pages: [PageDefinition] = []) {
        self.raw = raw
        for page in pages {
            for r in page.registers where rules[r.registerId] == nil {
                let digits: Int? = r.type == .f32 ? 7 : r.type == .f64 ? 15 : nil
                guard r.scale != nil || r.unit != nil || digits != nil else { continue }
                rules[r.registerId] = Rule(scale: r.scale, unit: r.unit, floatDigits: digits)
            }
        }
    }

    /// The value as shown; `-` when absent.
    func text(_ value: RegisterValue?, _ registerId: String) -> String {
        guard let value else { return "-" }
        guard !raw, let rule = rules[registerId] else { return value.description }
        let unit = rule.unit.map { " \($0)" } ?? ""
        switch value {
        case .text, .bytes: return value.description
        case .unsigned(let u): return Self.scaled(Int128(u), rule.scale) + unit
        case .signed(let s): return Self.scaled(Int128(s), rule.scale) + unit
        case .float(let f):
            guard f.isFinite else { return value.description + unit }
            let scale = rule.scale ?? 1
            return Self.float(f * scale, digits: rule.floatDigits ?? 15, atLeast: Self.decimals(scale)) + unit
        }
    }

    /// An integer times its scale, exactly when the scale is a decimal of at most 6 places (`-150` × 0.1 is
    /// `-15.0`, 18446744073709551615 × 0.001 is `18446744073709551.615`); otherwise through a Double.
    static func scaled(_ n: Int128, _ scale: Double?) -> String {
        guard let scale else { return String(n) }
        let d = decimals(scale)
        let m = (scale * pow(10, Double(d))).rounded()
        guard let factor = Int128(exactly: m), abs(m - scale * pow(10, Double(d))) < 1e-9 * max(1, abs(m)) else {
            return String(format: "%.\(d)f", Double(n) * scale)
        }
        let (product, overflow) = n.multipliedReportingOverflow(by: factor)
        guard !overflow else { return String(format: "%.\(d)f", Double(n) * scale) }
        guard d > 0 else { return String(product) }
        var digits = String(product.magnitude)
        if digits.count <= d { digits = String(repeating: "0", count: d - digits.count + 1) + digits }
        digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -d))
        return (product < 0 ? "-" : "") + digits
    }

    /// A float with `digits` significant digits, trailing zeros dropped down to `atLeast` decimals:
    /// 2.5 → `2.5`, 2.0 → `2` (`2.0` when the scale has a decimal), 0.1 as f32 → `0.1`. Beyond fixed
    /// notation's reach (below 1e-6 or from 1e15) in exponent notation.
    static func float(_ x: Double, digits: Int, atLeast: Int) -> String {
        if x == 0 { return String(format: "%.\(atLeast)f", 0.0) }
        let magnitude = abs(x)
        guard magnitude >= 1e-6, magnitude < 1e15 else { return String(format: "%.\(digits - 1)e", x) }
        let exponent = Int(log10(magnitude).rounded(.down))
        let places = Swift.max(0, digits - 1 - exponent)
        var text = String(format: "%.\(places)f", x)
        guard places > atLeast else { return text }
        // Drop trailing zeros beyond the scale's decimals (and the point when none is left).
        let keep = places - atLeast
        var dropped = 0
        while dropped < keep, text.hasSuffix("0") {
            text.removeLast()
            dropped += 1
        }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Decimal places a scale implies: 0.1 → 1, 0.25 → 2, 1 → 0, 10 → 0 (at most 6).
    static func decimals(_ scale: Double) -> Int {
        for d in 0...6 {
            let x = abs(scale) * pow(10, Double(d))
            if abs(x - x.rounded()) < 1e-9 * max(1, x) { return d }
        }
        return 6
    }
}

extension TextView {
    /// The display rules in force while rendering (set by `CommandContext.rendering`, or by tests).
    @TaskLocal static var display = ValueDisplay()
    /// Rules loaded on first use, when set (they take the place of `display`).
    @TaskLocal static var lazyDisplay: LazyPages?

    /// A register's value as shown in tables: scaled with its unit unless `--raw`; `-` when absent.
    static func value(_ value: RegisterValue?, _ registerId: String) -> String {
        guard value != nil else { return "-" }
        return (lazyDisplay?.display ?? display).text(value, registerId)
    }
}

/// Page definitions fetched the first time a value is shown (a report without values asks for nothing).
final class LazyPages: @unchecked Sendable {
    private let lock = NSLock()
    private var loaded: ValueDisplay?
    private let load: @Sendable () -> ValueDisplay

    /// `load` runs at most once.
    init(_ load: @escaping @Sendable () -> ValueDisplay) { self.load = load }

    /// The display rules, loading them on first use.
    var display: ValueDisplay {
        lock.withLock {
            if let loaded { return loaded }
            let d = load()
            loaded = d
            return d
        }
    }
}

extension CommandContext {
    /// Renders with the display rules of `pages`: their definitions are fetched from the daemon the first time a
    /// value is shown (a page that cannot be fetched shows raw values). Nothing is fetched for `--raw`.
    func rendering(pages: [String], _ body: () -> [String]) -> [String] {
        guard !options.raw else { return TextView.$display.withValue(ValueDisplay(raw: true), operation: body) }
        let api = self.api
        let ids = Set(pages).sorted().filter(SafeName.isValid)
        let lazy = LazyPages {
            ValueDisplay(
                pages: ids.compactMap { try? api.get(PageDefinition.self, "/v1/pages/\(DaemonAPI.escape($0))") })
        }
        return TextView.$lazyDisplay.withValue(lazy, operation: body)
    }
}
