import Foundation
import LastsetCore
import XCTest
import LastsetFormats

/// What a template's, audit record's or API body's time may be: RFC 3339, proleptic Gregorian, 1970…9999, and
/// whatever is accepted is written back as the same instant.
final class TimeTextTests: XCTestCase {
    func testAcceptedTimesReadBackAsTheSameInstant() throws {
        let cases: [(String, Double, String)] = [
            ("1970-01-01T00:00:00Z", 0, "1970-01-01T00:00:00.000Z"),
            ("1970-01-01T00:00:00.000Z", 0, "1970-01-01T00:00:00.000Z"),
            ("9999-12-31T23:59:59.999Z", 253_402_300_799.999, "9999-12-31T23:59:59.999Z"),
            ("2000-02-29T00:00:00.5Z", 951_782_400.5, "2000-02-29T00:00:00.500Z"),
            ("2026-06-01T12:00:00+02:00", 1_780_308_000, "2026-06-01T10:00:00.000Z"),
            ("2026-06-01T12:00:00.123456789-01:30", 1_780_320_600.123, "2026-06-01T13:30:00.123Z"),
            ("2026-06-01t12:00:00z", 1_780_315_200, "2026-06-01T12:00:00.000Z"),
            ("1970-01-01T01:00:00+01:00", 0, "1970-01-01T00:00:00.000Z"),
        ]
        for (text, seconds, written) in cases {
            let date = try TimeText.parse(text)
            XCTAssertEqual(date.timeIntervalSince1970, seconds, accuracy: 0.0005, text)
            XCTAssertEqual(TimeText.iso8601(date), written, text)
            XCTAssertEqual(try TimeText.parse(written), date, "\(text) does not read back identically")
        }
    }

    func testRefusedTimesSayWhy() {
        let cases: [(String, String)] = [
            // Foundation read this as year -2, December 30, which the writer turned into "00-2-12-30T…".
            ("-000001-01-01T00:00:00Z", "not an RFC 3339 time"),
            // Foundation's Julian calendar put this two days off.
            ("0001-01-01T00:00:00Z", "outside the accepted range 1970-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z"),
            ("1969-12-31T23:59:59.999Z", "outside the accepted range"),
            ("1970-01-01T00:30:00+01:00", "outside the accepted range"),
            ("+10000-01-01T00:00:00Z", "not an RFC 3339 time"),
            ("2026-02-29T00:00:00Z", "day 29 is not in 1…28 for month 2 of 2026"),
            ("2026-13-01T00:00:00Z", "month 13 is not in 1…12"),
            ("2026-01-01T24:00:00Z", "is not a time of day"),
            ("2026-01-01T23:59:60Z", "is not a time of day"),
            ("2026-01-01T00:00:00", "not an RFC 3339 time"),
            ("2026-01-01T00:00:00.Z", "not an RFC 3339 time"),
            ("2026-01-01T00:00:00Zjunk", "not an RFC 3339 time"),
            ("2026-01-01 00:00:00Z", "not an RFC 3339 time"),
            ("yesterday", "not an RFC 3339 time"),
            ("", "not an RFC 3339 time"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try TimeText.parse(text), text) { error in
                XCTAssertTrue("\(error)".hasPrefix("time \"\(text)\": "), "\(error)")
                XCTAssertTrue("\(error)".contains(reason), "\(text): \(error)")
            }
            XCTAssertNil(TimeText.parseISO8601(text), text)
        }
    }

    func testADecodedBodyNamesTheBadTime() {
        struct Body: Decodable { var at: Date }
        XCTAssertThrowsError(try APICoding.decoder().decode(Body.self, from: Data(#"{"at":"0001-01-01T00:00:00Z"}"#.utf8))) {
            XCTAssertTrue("\($0)".contains("time \"0001-01-01T00:00:00Z\": it is outside the accepted range"), "\($0)")
        }
    }
}
