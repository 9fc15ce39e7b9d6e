import Foundation

/// The on-disk form of a template: the template plus a checksum over its canonical encoding.
public enum TemplateFile {
    private struct Envelope: Codable {
        var format: String
        var checksum: String
        var template: Template
    }

    /// Format tag written in every file.
    public static let format = "lastset-template"

    private static func canonical(_ template: Template) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(TimeText.iso8601(date))
        }
        return try encoder.encode(template)
    }

    private static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let text = try c.decode(String.self)
            guard let date = TimeText.parseISO8601(text) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "bad date \"\(text)\"")
            }
            return date
        }
        return decoder
    }

    /// Encodes a template (pretty JSON, sorted keys) with its checksum.
    public static func encode(_ template: Template) throws -> Data {
        // Round-trip once so the checksum covers exactly what a later decode will re-encode
        // (dates are stored to the millisecond).
        let stable = try decoder().decode(Template.self, from: canonical(template))
        let checksum = "sha256:" + SHA256.hex(try canonical(stable))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(TimeText.iso8601(date))
        }
        var data = try encoder.encode(Envelope(format: format, checksum: checksum, template: stable))
        data.append(0x0A)
        return data
    }

    /// Decodes a file and checks its format tag, schema version and checksum.
    public static func decode(_ data: Data) throws(TemplateFileError) -> Template {
        let envelope: Envelope
        do {
            envelope = try decoder().decode(Envelope.self, from: data)
        } catch {
            throw TemplateFileError(reason: "not a readable template file: \(describe(error))")
        }
        guard envelope.format == format else {
            throw TemplateFileError(reason: "format is \"\(envelope.format)\", expected \"\(format)\"")
        }
        guard envelope.template.schemaVersion == Template.currentSchemaVersion else {
            throw TemplateFileError(reason: "schema version \(envelope.template.schemaVersion) is not supported")
        }
        let actual: String
        do {
            actual = "sha256:" + SHA256.hex(try canonical(envelope.template))
        } catch {
            throw TemplateFileError(reason: "cannot re-encode: \(error)")
        }
        guard actual == envelope.checksum else {
            throw TemplateFileError(reason: "checksum mismatch (file says \(envelope.checksum), content is \(actual))")
        }
        return envelope.template
    }

    private static func describe(_ error: any Error) -> String {
        guard let e = error as? DecodingError else { return String(describing: error) }
        switch e {
        case .dataCorrupted(let c), .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c):
            let path = c.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return (path.isEmpty ? "" : "at \(path): ") + c.debugDescription
        @unknown default:
            return String(describing: e)
        }
    }
}

/// A template file that cannot be used: unreadable, wrong format, or checksum mismatch.
public struct TemplateFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// ISO 8601 timestamps with milliseconds, UTC. Formatted by hand: creating Foundation date
/// formatters per value dominated the cost of encoding large templates.
public enum TimeText {
    /// e.g. `2026-11-29T14:05:00.123Z`.
    public static func iso8601(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let ms = Int(((millis % 1000) + 1000) % 1000)
        let seconds = (millis - Int64(ms)) / 1000
        let days = Int(seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400)
        let secOfDay = Int(seconds - Int64(days) * 86400)
        let (y, m, d) = civil(fromDays: days)
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secOfDay / 3600, 2)):\(pad(secOfDay / 60 % 60, 2)):\(pad(secOfDay % 60, 2)).\(pad(ms, 3))Z"
    }

    /// Parses the form written by `iso8601` (and other RFC 3339 forms via Foundation).
    public static func parseISO8601(_ text: String) -> Date? {
        let b = Array(text.utf8)
        if b.count == 24, b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58, b[19] == 46, b[23] == 90 {
            func num(_ r: Range<Int>) -> Int? {
                var v = 0
                for i in r {
                    guard (48...57).contains(b[i]) else { return nil }
                    v = v * 10 + Int(b[i] - 48)
                }
                return v
            }
            if let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10), let h = num(11..<13), let mi = num(14..<16),
                let s = num(17..<19), let ms = num(20..<23), (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61
            {
                let days = Int64(daysFromCivil(y, mo, d))
                let millis = ((days * 86400 + Int64(h * 3600 + mi * 60 + s)) * 1000) + Int64(ms)
                return Date(timeIntervalSince1970: Double(millis) / 1000)
            }
        }
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)
    }

    // Howard Hinnant's civil-from-days and days-from-civil algorithms (proleptic Gregorian).
    private static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    private static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}
