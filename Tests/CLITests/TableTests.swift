import LastsetCore
import XCTest

@testable import lastset

/// The pure pieces of the CLI, tested in-process: tables, text views, progress bar, argument parsing.
final class TableTests: XCTestCase {
    func testColumnsArePaddedToTheWidestCellAndNumbersAlignRight() {
        var table = Table([.init("ID"), .init("UNIT", .right), .init("NOTE")])
        table.append(["press-1", "1", "ok"])
        table.append(["b", "255", ""])
        XCTAssertEqual(
            table.lines,
            [
                "ID       UNIT  NOTE",
                "press-1     1  ok",
                "b         255",
            ])
    }

    func testShortRowsArePaddedAndExtraCellsDropped() {
        let table = Table([.init("A"), .init("B")], rows: [["x"], ["1", "2", "3"]])
        XCTAssertEqual(table.text, "A  B\nx\n1  2")
    }

    func testWideCharactersCountAsOneColumn() {
        let table = Table([.init("UNIT"), .init("X")], rows: [["°C", "1"]])
        XCTAssertEqual(table.lines, ["UNIT  X", "°C    1"])
    }

    func testControlCharactersInCellsAreEscaped() {
        let table = Table([.init("MESSAGE"), .init("X")], rows: [["line1\nline2\tend\u{7}", "1"]])
        XCTAssertEqual(table.lines[1], #"line1\nline2\tend\u{7}  1"#)
    }

    func testProgressBar() {
        XCTAssertEqual(
            ProgressBar.line(kind: "apply", pageId: "heating", progress: JobProgress(phase: .writing, done: 1, total: 4)),
            "apply heating [#####---------------] writing 1/4")
        XCTAssertEqual(
            ProgressBar.line(kind: "capture", pageId: "p", progress: JobProgress(phase: .reading, done: 9, total: 3), width: 4),
            "capture p [####] reading 3/3")
        XCTAssertEqual(
            ProgressBar.line(kind: "capture", pageId: "p", progress: JobProgress(phase: .reading, done: 0, total: 0), width: 4),
            "capture p [----] reading 0/0")
        XCTAssertEqual(ProgressBar.line(kind: "apply", pageId: "p", progress: nil, width: 4), "apply p [----] starting")
    }

    func testRefusedReplayShowsTheIdentityThatDidNotMatch() {
        XCTAssertEqual(
            TextView.replay(Fixtures.refused),
            [
                "apply heating v3 to tcp://127.0.0.1:15099, unit 4: REFUSED (nothing written)",
                "IDENTITY  EXPECTED  ACTUAL  PROBLEM",
                #"model     "AB"      "XY"    does not match"#,
                "verified 0 / mismatch 0 / rejected 0 / failed 0 / not attempted 0",
                "reason: identity does not match: model",
                "requests 1, write frames 0",
            ])
    }

    /// The rollback's table shows a "not set" value as `(not set)`, not decoded (an s16 0x7FFF with
    /// scale 0.1 would read 3276.7 °C, a blank string replacement characters).
    func testRollbackTableShowsNotSetValuesAsNotSet() {
        var report = Fixtures.replayRolledBack
        report.rollback = RollbackResult(
            restored: false,
            registers: [
                RegisterResult(
                    registerId: "heating.setpoint", address: 101, length: 1, status: .mismatch, expected: .signed(32767),
                    expectedData: "7FFF", actual: .signed(50), actualData: "0032", before: .signed(32767), beforeUnset: true,
                    expectedUnset: true, actualUnset: false, message: "restored value did not verify"),
                RegisterResult(
                    registerId: "heating.label", address: 110, length: 1, status: .verified, expected: .text("\u{FFFD}\u{FFFD}"),
                    expectedData: "FFFF", actual: .text("\u{FFFD}\u{FFFD}"), actualData: "FFFF",
                    before: .text("\u{FFFD}\u{FFFD}"),
                    beforeUnset: true, expectedUnset: true, actualUnset: true),
            ])
        let lines = TextView.replay(report)
        XCTAssertEqual(
            Array(lines.suffix(5)),
            [
                "rollback: NOT restored; the target's values now:",
                "REGISTER          ADDRESS  STATUS    BEFORE     EXPECTED   ACTUAL     NOTE",
                "heating.setpoint      101  mismatch  (not set)  (not set)  50         restored value did not verify",
                "heating.label         110  verified  (not set)  (not set)  (not set)  -",
                "requests 11, write frames 6",
            ])
    }

    func testRollbackThatFailedListsTheTargetsValues() {
        var report = Fixtures.replayRolledBack
        report.rollback = RollbackResult(
            restored: false,
            registers: [
                RegisterResult(
                    registerId: "heating.mode", address: 100, length: 1, status: .failed, expected: .unsigned(0),
                    expectedData: "0000",
                    message: "timeout")
            ])
        let lines = TextView.replay(report)
        XCTAssertEqual(
            Array(lines.suffix(4)),
            [
                "rollback: NOT restored; the target's values now:",
                "REGISTER      ADDRESS  STATUS  EXPECTED  ACTUAL  NOTE",
                "heating.mode      100  failed  0         -       timeout",
                "requests 11, write frames 6",
            ])
    }

    func testArchivedCaptureAndJobErrors() {
        XCTAssertEqual(
            TextView.capture(Fixtures.captureArchived),
            [
                "capture of heating from press-1: archived as version 4 (3 entries, 2 read requests)",
                "skipped 1 register:",
                "REGISTER   ADDRESS  REASON",
                "comm.unit      200  not cloned (clone: false)",
            ])
        XCTAssertEqual(
            TextView.job(Fixtures.job(finished: true, error: "template v3 is corrupt: checksum mismatch")),
            ["apply of heating on press-2 failed: template v3 is corrupt: checksum mismatch"])
        var failedArchive = Fixtures.captureArchived
        failedArchive.archived = false
        failedArchive.error = "cannot fsync: No space left on device"
        XCTAssertEqual(
            TextView.capture(failedArchive).first,
            "capture of heating from press-1 FAILED: cannot fsync: No space left on device; nothing archived, the previous template stays current"
        )
    }

    func testEmptyListsSaySo() {
        XCTAssertEqual(TextView.devices([]), ["no devices configured"])
        XCTAssertEqual(TextView.pages([]), ["no pages configured"])
        XCTAssertEqual(TextView.templates([], pageId: "heating"), [#"no templates archived for page "heating""#])
        XCTAssertEqual(TextView.audit(AuditPage(records: [], unreadable: 0)), ["no audit records"])
    }

    func testParsedArgumentsForms() throws {
        let parsed = try ParsedArguments(["heating", "--to=tcp://h:1", "--dry-run", "--unit", "-1"], spec: Apply.spec)
        XCTAssertEqual(parsed.argument("PAGE"), "heating")
        XCTAssertEqual(parsed.value("--to"), "tcp://h:1")
        XCTAssertTrue(parsed.flag("--dry-run"))
        XCTAssertThrowsError(try parsed.integer("--unit", in: 0...255)) { error in
            XCTAssertEqual((error as? UsageError)?.message, #"--unit must be an integer in 0...255 (got "-1")"#)
        }
        let dashed = try ParsedArguments(["--to", "d", "--", "--odd-page"], spec: Apply.spec)
        XCTAssertEqual(dashed.argument("PAGE"), "--odd-page")
        XCTAssertThrowsError(try ParsedArguments(["p", "--to", "a", "--to", "b"], spec: Apply.spec)) { error in
            XCTAssertEqual((error as? UsageError)?.message, "option --to is given more than once")
        }
        XCTAssertThrowsError(try ParsedArguments(["p", "--dry-run=yes", "--to", "a"], spec: Apply.spec)) { error in
            XCTAssertEqual((error as? UsageError)?.message, #"option --dry-run takes no value (got "yes")"#)
        }
    }

    func testGlobalVersionOnlyBeforeTheCommand() throws {
        let (options, command, rest) = try GlobalOptions.split([
            "--json", "show", "heating", "--version", "2", "--socket=/x.sock",
        ])
        XCTAssertEqual(command, "show")
        XCTAssertEqual(rest, ["heating", "--version", "2"])
        XCTAssertTrue(options.json)
        XCTAssertFalse(options.version)
        XCTAssertEqual(options.socket, "/x.sock")
        XCTAssertTrue(try GlobalOptions.split(["--version"]).0.version)
    }

    func testSocketResolutionOrder() throws {
        XCTAssertEqual(try GlobalOptions().endpoint(environment: [:]), .unix(path: "/run/lastset/api.sock"))
        XCTAssertEqual(try GlobalOptions().endpoint(environment: ["LASTSET_SOCKET": "/e.sock"]), .unix(path: "/e.sock"))
        var options = GlobalOptions()
        options.socket = "/o.sock"
        XCTAssertEqual(try options.endpoint(environment: ["LASTSET_SOCKET": "/e.sock"]), .unix(path: "/o.sock"))
    }

    func testPathSegmentsAreEscaped() {
        XCTAssertEqual(DaemonAPI.escape("press-1.a_b~"), "press-1.a_b~")
        XCTAssertEqual(DaemonAPI.escape("a b/ü&"), "a%20b%2F%C3%BC%26")
    }
}

/// Values scaled with their unit, and raw on request.
final class ValueDisplayTests: XCTestCase {
    func testScaledWithUnitAndRaw() {
        let page = PageDefinition(
            id: "p", title: nil,
            registers: [
                RegisterDefinition(registerId: "t", address: 1, type: .s16, scale: 0.1, unit: "°C"),
                RegisterDefinition(registerId: "p", address: 2, type: .u16, scale: 0.25),
                RegisterDefinition(registerId: "f", address: 3, type: .f32, unit: "bar"),
                RegisterDefinition(registerId: "n", address: 5, type: .u16),
            ])
        let d = ValueDisplay(pages: [page])
        let cases: [(RegisterValue?, String, String)] = [
            (.signed(-150), "t", "-15.0 °C"), (.signed(900), "t", "90.0 °C"), (.unsigned(3), "p", "0.75"),
            (.float(2.5), "f", "2.5 bar"), (.unsigned(7), "n", "7"), (.unsigned(7), "unknown", "7"), (nil, "t", "-"),
            (.text("x"), "t", "\"x\""),
        ]
        for (v, id, want) in cases { XCTAssertEqual(d.text(v, id), want, "\(id) \(String(describing: v))") }
        XCTAssertEqual(ValueDisplay(raw: true, pages: [page]).text(.signed(-150), "t"), "-150")
        XCTAssertEqual([0.1, 0.25, 1, 10, 0.001].map(ValueDisplay.decimals), [1, 2, 0, 0, 3])
        XCTAssertEqual(
            TextView.$display.withValue(d) { TextView.value(.signed(-150), "t") }, "-15.0 °C")
    }

    /// Issue 19, defect 16: a float is never rounded to its scale's decimals (f32 2.5 with `scale: 1`, as a
    /// vendor CSV's "Multiplier 1" gives, used to show `2 K/min`), and an integer times its scale is exact.
    func testFloatsKeepTheirDigitsAndIntegersScaleExactly() {
        let page = PageDefinition(
            id: "p", title: nil,
            registers: [
                RegisterDefinition(registerId: "ramp", address: 1, type: .f32, scale: 1, unit: "K/min"),
                RegisterDefinition(registerId: "tenth", address: 3, type: .f32, scale: 0.1),
                RegisterDefinition(registerId: "plain", address: 5, type: .f32),
                RegisterDefinition(registerId: "wide", address: 7, type: .f64, scale: 0.5),
                RegisterDefinition(registerId: "energy", address: 11, type: .u64, scale: 0.001, unit: "kWh"),
                RegisterDefinition(registerId: "count", address: 15, type: .u64, scale: 1),
                RegisterDefinition(registerId: "offset", address: 19, type: .s16, scale: 0.25),
                RegisterDefinition(registerId: "milli", address: 20, type: .s16, scale: 0.001),
                RegisterDefinition(registerId: "tens", address: 21, type: .u16, scale: 10),
            ])
        let d = ValueDisplay(pages: [page])
        let f32 = { (x: Float) in RegisterValue.float(Double(x)) }
        let table: [(RegisterValue, String, String, UInt)] = [
            (f32(2.5), "ramp", "2.5 K/min", #line),
            (f32(2), "ramp", "2 K/min", #line),
            (f32(-0.75), "ramp", "-0.75 K/min", #line),
            (f32(21.5), "tenth", "2.15", #line),
            (f32(20), "tenth", "2.0", #line),
            (f32(0), "tenth", "0.0", #line),
            (f32(0.1), "plain", "0.1", #line),
            (f32(123456.7), "plain", "123456.7", #line),
            (f32(1e20), "plain", "1.000000e+20", #line),
            (.float(0.1 + 0.2), "wide", "0.15", #line),
            (.float(3), "wide", "1.5", #line),
            (.unsigned(.max), "energy", "18446744073709551.615 kWh", #line),
            (.unsigned(5), "energy", "0.005 kWh", #line),
            (.unsigned(.max), "count", "18446744073709551615", #line),
            (.unsigned(9_007_199_254_740_993), "count", "9007199254740993", #line),
            (.signed(-5), "offset", "-1.25", #line),
            (.signed(-1), "milli", "-0.001", #line),
            (.signed(-1234), "milli", "-1.234", #line),
            (.unsigned(7), "tens", "70", #line),
        ]
        for (v, id, want, line) in table { XCTAssertEqual(d.text(v, id), want, "\(id) \(v)", line: line) }
    }
}
