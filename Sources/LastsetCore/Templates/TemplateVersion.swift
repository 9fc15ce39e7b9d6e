import Foundation
import LastsetFormats

/// The identity of one archived template version, and the file name that carries it.
///
/// Without a fleet a version is a local number (`v000003.json`, id `3`). In a fleet every host numbers
/// only its own versions, so the id `<host>-<n>` (e.g. `line-7-3`) names the same template on every host
/// and never changes meaning; the file name also carries when the host archived it, so "latest" is
/// known from a directory listing alone and is the same on every host once synced:
///
///     v000003.json                              legacy / no fleet: id "3"
///     v000003@line-7@20261201T105500.123Z.json  fleet: id "line-7-3", archived at that instant (UTC)
public struct TemplateVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The number the archiving host gave it (1, 2, … per page and host).
    public var number: Int
    /// The host that archived it; nil for a version made without a fleet.
    public var host: String?
    /// When `host` archived it (millisecond precision); nil without a fleet.
    public var archivedAt: Date?

    /// A version; a fleet version has both `host` and `archivedAt`.
    public init(number: Int, host: String? = nil, archivedAt: Date? = nil) {
        self.number = number
        self.host = host
        self.archivedAt = archivedAt.map(Self.milliseconds)
    }

    /// The identifier users and the API see: `3`, or `line-7-3` in a fleet.
    public var id: String { host.map { "\($0)-\(number)" } ?? String(number) }

    public var description: String { id }

    /// The template's file name in its page directory.
    public var fileName: String {
        let n = "v" + Self.pad(number)
        guard let host, let archivedAt else { return n + ".json" }
        return "\(n)@\(host)@\(Self.compactTime(archivedAt)).json"
    }

    /// Parses a file name written by `fileName`; nil for anything else (temp files, foreign names).
    public static func parse(fileName name: String) -> TemplateVersion? {
        guard name.hasSuffix(".json") else { return nil }
        let stem = name.dropLast(5)
        let parts = stem.split(separator: "@", omittingEmptySubsequences: false)
        guard let first = parts.first, first.hasPrefix("v"), first.count >= 7,
            first.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(first.dropFirst()), number >= 1
        else { return nil }
        switch parts.count {
        case 1:
            let v = TemplateVersion(number: number)
            return v.fileName == name ? v : nil
        case 3:
            let host = String(parts[1])
            guard SafeName.isValid(host), let time = parseCompactTime(String(parts[2])) else { return nil }
            let v = TemplateVersion(number: number, host: host, archivedAt: time)
            // One spelling per version: a name that does not round-trip is not ours.
            return v.fileName == name ? v : nil
        default:
            return nil
        }
    }

    /// Fleet order, the same on every host: by archive time, then host name, then number. Versions
    /// made without a fleet come first, by number (they predate any fleet version of the directory).
    public static func < (a: TemplateVersion, b: TemplateVersion) -> Bool {
        switch (a.archivedAt, b.archivedAt) {
        case (nil, nil): return (a.host ?? "", a.number) < (b.host ?? "", b.number)
        case (nil, _?): return true
        case (_?, nil): return false
        case (let x?, let y?):
            if x != y { return x < y }
            if a.host != b.host { return (a.host ?? "") < (b.host ?? "") }
            return a.number < b.number
        }
    }

    private static func pad(_ n: Int) -> String {
        let s = String(n)
        return s.count >= 6 ? s : String(repeating: "0", count: 6 - s.count) + s
    }

    /// `d` rounded to the millisecond, as file names and template files keep times.
    public static func milliseconds(_ d: Date) -> Date {
        Date(timeIntervalSince1970: (d.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// `2026-12-01T10:55:00.123Z` → `20261201T105500.123Z` (no `:`: file names travel to other systems).
    static func compactTime(_ d: Date) -> String {
        TimeText.iso8601(d).filter { $0 != "-" && $0 != ":" }
    }

    static func parseCompactTime(_ s: String) -> Date? {
        let c = Array(s)
        guard c.count == 20, c[8] == "T", c[15] == ".", c[19] == "Z" else { return nil }
        let date = String(c[0..<4]) + "-" + String(c[4..<6]) + "-" + String(c[6..<8])
        let time = String(c[9..<11]) + ":" + String(c[11..<13]) + ":" + String(c[13..<15])
        let iso: String = date + "T" + time + "." + String(c[16..<19]) + "Z"
        guard iso.utf8.count == 24 else { return nil }
        return TimeText.parseISO8601(iso)
    }
}

/// Which version a request names: the latest, a number (this host's own in a fleet), or a fleet id.
public enum TemplateVersionRef: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    case latest
    /// `3`: the version numbered 3 by this host (the only numbering without a fleet).
    case number(Int)
    /// `line-7-3`: version 3 of host `line-7`.
    case id(host: String, number: Int)

    /// `3` in code means `.number(3)`.
    public init(integerLiteral value: Int) { self = .number(value) }

    /// Parses `latest`, `3` or `<host>-<n>`; nil for anything else.
    public static func parse(_ text: String) -> TemplateVersionRef? {
        if text == "latest" { return .latest }
        if let n = Int(text), n >= 1, text.utf8.allSatisfy({ (48...57).contains($0) }) { return .number(n) }
        guard let dash = text.lastIndex(of: "-") else { return nil }
        let host = String(text[..<dash])
        let digits = text[text.index(after: dash)...]
        guard SafeName.isValid(host), !digits.isEmpty, digits.utf8.allSatisfy({ (48...57).contains($0) }),
            let n = Int(digits), n >= 1
        else { return nil }
        return .id(host: host, number: n)
    }

    public var description: String {
        switch self {
        case .latest: return "latest"
        case .number(let n): return String(n)
        case .id(let h, let n): return "\(h)-\(n)"
        }
    }

    /// Whether `version` is the one this names, on an archive whose own host is `localHost`.
    public func names(_ version: TemplateVersion, localHost: String?) -> Bool {
        switch self {
        case .latest: return false
        case .number(let n): return version.number == n && version.host == localHost
        case .id(let h, let n): return version.number == n && version.host == h
        }
    }

    /// A JSON number for `number` (as before fleets), a string otherwise.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .number(let n): try c.encode(n)
        default: try c.encode(description)
        }
    }

    /// Accepts a positive number, `"latest"`, `"3"` or `"line-7-3"`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let n = try? c.decode(Int.self) {
            guard n >= 1 else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "version \(n) is not a positive number")
            }
            self = .number(n)
            return
        }
        let text = try c.decode(String.self)
        guard let ref = TemplateVersionRef.parse(text) else {
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "version \"\(text)\" is not a number, \"latest\" or \"<host>-<number>\"")
        }
        self = ref
    }
}
