import Foundation

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
