import Foundation

/// The on-disk form of a template: a header line, then the template as JSON (one entry per line).
///
///     {"format":"lastset-template","checksum":"sha256:…","summary":{…}}
///     {"capturedAt":…,"entries":[
///     {"address":100,…},
///     …]}
///
/// The checksum covers the exact bytes of the summary and of the template (summary, newline, template),
/// so any edit is caught without re-encoding, and listings read the summary without decoding the
/// entries. Each line is JSON (the file is a two-document JSON stream: `jq . FILE` reads it).
public enum TemplateFile {
    /// Format tag written in every file.
    public static let format = "lastset-template"

    private static let prefix = Array("{\"format\":\"\(format)\",\"checksum\":\"sha256:".utf8)
    private static let middle = Array("\",\"summary\":".utf8)

    /// What a listing shows of a template, read from the header line.
    public struct Summary: Codable, Sendable, Hashable {
        /// Fleet versions only: when and by which host it was archived.
        public var archivedAt: Date?
        public var host: String?
        public var pageId: String
        public var version: Int
        public var pageHash: String
        public var capturedAt: Date
        public var source: String
        public var entries: Int
    }

    /// Encodes a template with its summary and checksum.
    public static func encode(_ template: Template) -> Data {
        var body = JSONWriter(capacity: 64 + template.entries.count * 160)
        write(template, to: &body)
        var head = JSONWriter(capacity: 256)
        head.beginObject()
        if let archivedAt = template.archivedAt {
            head.field("archivedAt", archivedAt)
        }
        head.field("capturedAt", template.capturedAt)
        head.field("entries", template.entries.count)
        if let host = template.host {
            head.field("host", host)
        }
        head.field("pageHash", template.pageHash)
        head.field("pageId", template.pageId)
        head.field("source", template.source.deviceId ?? template.source.endpoint)
        head.field("version", template.version)
        head.endObject()
        var sha = SHA256()
        sha.update(head.bytes)
        sha.update(CollectionOfOne(0x0A))
        sha.update(body.bytes)
        var out = Data(capacity: prefix.count + 64 + middle.count + head.bytes.count + body.bytes.count + 4)
        out.append(contentsOf: prefix)
        out.append(contentsOf: sha.finalize().hexString.lowercased().utf8)
        out.append(contentsOf: middle)
        out.append(contentsOf: head.bytes)
        out.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
        out.append(contentsOf: body.bytes)
        out.append(0x0A)
        return out
    }

    /// Splits a file into its verified summary bytes and template bytes.
    private static func verifiedParts(_ data: Data) throws(TemplateFileError) -> (summary: Data, template: Data) {
        let bytes = [UInt8](data)
        guard bytes.starts(with: prefix) else {
            throw TemplateFileError(reason: "not a \(format) file (its first line does not start with the format tag)")
        }
        guard let newline = bytes.firstIndex(of: 0x0A) else { throw TemplateFileError(reason: "truncated: no header line") }
        let hexStart = prefix.count
        let hexEnd = hexStart + 64
        guard newline > hexEnd + middle.count + 1, Array(bytes[hexEnd..<hexEnd + middle.count]) == middle,
            bytes[newline - 1] == UInt8(ascii: "}")
        else { throw TemplateFileError(reason: "malformed header line") }
        let stored = String(decoding: bytes[hexStart..<hexEnd], as: UTF8.self)
        let summary = bytes[(hexEnd + middle.count)..<(newline - 1)]
        var end = bytes.count
        if end > newline + 1 && bytes[end - 1] == 0x0A { end -= 1 }
        let template = bytes[(newline + 1)..<end]
        var sha = SHA256()
        sha.update(summary)
        sha.update(CollectionOfOne(0x0A))
        sha.update(template)
        let actual = sha.finalize().hexString.lowercased()
        guard actual == stored else {
            throw TemplateFileError(reason: "checksum mismatch (file says sha256:\(stored), content is sha256:\(actual))")
        }
        return (Data(summary), Data(template))
    }

    /// Decodes a file after checking its format tag, checksum and schema version.
    public static func decode(_ data: Data) throws(TemplateFileError) -> Template {
        let parts = try verifiedParts(data)
        let template: Template
        do {
            template = try APICoding.decoder().decode(Template.self, from: parts.template)
        } catch {
            throw TemplateFileError(reason: "checksum matches but the template does not decode: \(describe(error))")
        }
        guard template.schemaVersion == Template.currentSchemaVersion else {
            throw TemplateFileError(reason: "schema version \(template.schemaVersion) is not supported")
        }
        return template
    }

    /// The summary of a file, after checking its checksum (the entries are not decoded).
    public static func summary(_ data: Data) throws(TemplateFileError) -> Summary {
        let parts = try verifiedParts(data)
        do {
            return try APICoding.decoder().decode(Summary.self, from: parts.summary)
        } catch {
            throw TemplateFileError(reason: "unreadable summary: \(describe(error))")
        }
    }

    /// Writes the template's JSON (sorted keys, `Template`'s Codable shape).
    static func write(_ t: Template, to w: inout JSONWriter) {
        w.beginObject()
        if let archivedAt = t.archivedAt {
            w.field("archivedAt", archivedAt)
        }
        w.field("capturedAt", t.capturedAt)
        if let by = t.capturedBy {
            w.field("capturedBy", by)
        }
        w.key("entries")
        w.beginArray()
        var lastDate: Date?
        var lastDateText = ""
        for e in t.entries {
            w.lineBreak()
            w.beginObject()
            w.field("address", e.address)
            // Every entry of a capture has the same read time: format it once.
            if e.lastDate != lastDate {
                lastDate = e.lastDate
                lastDateText = TimeText.iso8601(e.lastDate)
            }
            w.field("lastDate", lastDateText)
            if let layout = e.layout {
                w.key("layout")
                layout.write(to: &w)
            }
            w.field("length", e.length)
            w.field("registerId", e.registerId)
            w.field("value", e.value)
            w.field("valueData", e.valueData)
            w.endObject()
        }
        w.endArray()
        if let host = t.host {
            w.field("host", host)
        }
        w.field("pageHash", t.pageHash)
        w.field("pageId", t.pageId)
        if let p = t.provenance {
            w.field("provenance", p)
        }
        w.field("schemaVersion", t.schemaVersion)
        w.key("skipped")
        w.beginArray()
        for s in t.skipped {
            w.lineBreak()
            w.beginObject()
            w.field("address", s.address)
            w.field("reason", s.reason.rawValue)
            w.field("registerId", s.registerId)
            w.endObject()
        }
        w.endArray()
        w.key("source")
        w.beginObject()
        if let id = t.source.deviceId {
            w.field("deviceId", id)
        }
        w.field("endpoint", t.source.endpoint)
        w.key("identity")
        w.beginArray()
        for i in t.source.identity { i.write(to: &w) }
        w.endArray()
        w.field("unit", t.source.unit)
        w.endObject()
        w.field("version", t.version)
        w.endObject()
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
        return
            "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secOfDay / 3600, 2)):\(pad(secOfDay / 60 % 60, 2)):\(pad(secOfDay % 60, 2)).\(pad(ms, 3))Z"
    }

    /// The earliest time a template, audit record or API body may carry: 1970-01-01T00:00:00Z.
    public static let earliest = Date(timeIntervalSince1970: 0)
    /// The latest: 9999-12-31T23:59:59.999Z (the last instant with a four-digit year).
    public static let latest = Date(timeIntervalSince1970: 253_402_300_799.999)

    /// Parses an RFC 3339 time — `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` — in the proleptic Gregorian
    /// calendar, as `iso8601` writes it, and refuses one outside `earliest…latest`. Foundation's parser is not
    /// used: it reads dates before 1582 in the Julian calendar (year 0001 came back two days off) and accepts
    /// signed years that the writer cannot write back.
    public static func parse(_ text: String) throws(TimeTextError) -> Date {
        let b = Array(text.utf8)
        func fail(_ why: String) -> TimeTextError { TimeTextError(text: text, reason: why) }
        let shape = "not an RFC 3339 time (YYYY-MM-DDTHH:MM:SS[.fff]Z or with ±HH:MM)"
        func digits(_ r: Range<Int>) -> Int? {
            guard r.upperBound <= b.count else { return nil }
            var v = 0
            for i in r {
                guard (48...57).contains(b[i]) else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard b.count >= 20, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 116, b[13] == 58, b[16] == 58,
            let y = digits(0..<4), let mo = digits(5..<7), let d = digits(8..<10), let h = digits(11..<13),
            let mi = digits(14..<16), let s = digits(17..<19)
        else { throw fail(shape) }
        guard (1...12).contains(mo) else { throw fail("month \(mo) is not in 1…12") }
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]
        guard (1...monthDays).contains(d) else { throw fail("day \(d) is not in 1…\(monthDays) for month \(mo) of \(y)") }
        guard h < 24, mi < 60, s < 60 else { throw fail("time \(h):\(mi):\(s) is not a time of day") }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == 46 {
            i += 1
            let start = i
            while i < b.count, (48...57).contains(b[i]) { i += 1 }
            guard i > start, i - start <= 9, let f = digits(start..<i) else { throw fail(shape) }
            fraction = Double(f) / pow(10, Double(i - start))
        }
        var offsetSeconds = 0
        if i < b.count, b[i] == 90 || b[i] == 122 {
            i += 1
        } else if i + 6 == b.count, b[i] == 43 || b[i] == 45, b[i + 3] == 58, let oh = digits(i + 1..<i + 3),
            let om = digits(i + 4..<i + 6), oh < 24, om < 60
        {
            offsetSeconds = (oh * 3600 + om * 60) * (b[i] == 45 ? -1 : 1)
            i += 6
        } else {
            throw fail(shape)
        }
        guard i == b.count else { throw fail(shape) }
        let days = Int64(daysFromCivil(y, mo, d))
        let seconds = days * 86400 + Int64(h * 3600 + mi * 60 + s) - Int64(offsetSeconds)
        // Millisecond resolution, as written: whole milliseconds stay exact in a Double.
        let millis = Double(seconds) * 1000 + (fraction * 1000).rounded()
        let date = Date(timeIntervalSince1970: millis / 1000)
        guard date >= earliest, date <= latest else {
            throw fail("it is outside the accepted range \(iso8601(earliest)) … \(iso8601(latest))")
        }
        return date
    }

    /// `parse`, or nil for a text it refuses.
    public static func parseISO8601(_ text: String) -> Date? { try? parse(text) }

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
