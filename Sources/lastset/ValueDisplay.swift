import Foundation
import LastsetCore

/// How the CLI shows register values: scaled with their unit as the page definitions declare them
/// (`-150` with `scale: 0.1, unit: "°C"` → `-15.0 °C`), or raw (`--raw`, and for registers it knows nothing of).
struct ValueDisplay: Sendable {
    /// A register's display rule.
    struct Rule: Sendable, Hashable {
        /// Multiplier applied to the raw number.
        var scale: Double?
        /// Shown after the value.
        var unit: String?
    }

    /// `--raw`: the value as stored.
    var raw = false
    /// registerId → rule.
    var rules: [String: Rule] = [:]

    /// Rules from page definitions (the first page declaring a registerId wins).
    init(raw: Bool = false, pages: [PageDefinition] = []) {
        self.raw = raw
        for page in pages {
            for r in page.registers where rules[r.registerId] == nil && (r.scale != nil || r.unit != nil) {
                rules[r.registerId] = Rule(scale: r.scale, unit: r.unit)
            }
        }
    }

    /// The value as shown; `-` when absent.
    func text(_ value: RegisterValue?, _ registerId: String) -> String {
        guard let value else { return "-" }
        guard !raw, let rule = rules[registerId] else { return value.description }
        switch value {
        case .text, .bytes: return value.description
        case .unsigned, .signed, .float:
            guard let n = value.number, n.isFinite else { return value.description + (rule.unit.map { " \($0)" } ?? "") }
            let shown: String
            if let scale = rule.scale {
                let decimals = Self.decimals(scale)
                shown = String(format: "%.\(decimals)f", n * scale)
            } else {
                shown = value.description
            }
            return shown + (rule.unit.map { " \($0)" } ?? "")
        }
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
