import LastsetCore
import XCTest

/// The one rule for a serial line's framing (issue 19, defect 7): the configured devices' settings are the line's,
/// and a line in use is never reopened with other settings.
final class LineAccessTests: XCTestCase {
    func testWhichSettingsAJobMayUseOnALine() {
        let line = MachineKey.rtu(realPath: "/dev/ttyUSB0")
        let s19200 = LineSettings(baud: 19200)
        let s9600 = LineSettings(baud: 9600)
        let even = LineSettings(baud: 19200, parity: "E")
        let twoStop = LineSettings(baud: 19200, stopBits: 2)
        let sevenBits = LineSettings(baud: 19200, dataBits: 7)
        let pressA = LineAccess.Declaration(device: "press-a", settings: s19200)
        let pressB = LineAccess.Declaration(device: "press-b", settings: s19200)
        let odd = LineAccess.Declaration(device: "press-c", settings: s9600)
        typealias R = LineAccess.Refusal
        let cases: [(LineSettings, [LineAccess.Declaration], LineSettings?, Bool, R?, String)] = [
            (s19200, [pressA], nil, false, nil, "a configured unit at its own settings, line never opened"),
            (s19200, [pressA, pressB], s19200, true, nil, "a second unit at the line's settings while one runs"),
            (
                s9600, [pressA], nil, false, .configured(line: line, requested: s9600, device: "press-a", declared: s19200),
                "ad-hoc at another baud, first caller on the line"
            ),
            (
                s9600, [pressA], s19200, false, .configured(line: line, requested: s9600, device: "press-a", declared: s19200),
                "ad-hoc at another baud, line idle at the configured settings"
            ),
            (
                even, [pressA], s19200, false, .configured(line: line, requested: even, device: "press-a", declared: s19200),
                "another parity"
            ),
            (
                twoStop, [pressA], nil, false, .configured(line: line, requested: twoStop, device: "press-a", declared: s19200),
                "other stop bits"
            ),
            (
                sevenBits, [pressA], nil, false,
                .configured(line: line, requested: sevenBits, device: "press-a", declared: s19200),
                "other data bits"
            ),
            (
                s19200, [pressA, odd], nil, false, .configured(line: line, requested: s19200, device: "press-c", declared: s9600),
                "the config disagrees with itself about one line (two spellings of one device)"
            ),
            (
                s9600, [], s19200, true, .inUse(line: line, requested: s9600, open: s19200),
                "an unconfigured line in use at other settings"
            ),
            (s9600, [], s19200, false, nil, "an unconfigured idle line: reopened with the new settings"),
            (
                s9600, [odd], s19200, true, .inUse(line: line, requested: s9600, open: s19200),
                "after a reload to 9600 while a job runs at 19200: not reopened mid-job"
            ),
            (s9600, [odd], s19200, false, nil, "after a reload to 9600, the line idle: reopened"),
            (s19200, [pressA], s19200, true, nil, "same settings, in use"),
        ]
        for (requested, declared, open, inUse, expected, name) in cases {
            XCTAssertEqual(
                LineAccess.refusal(line: line, requested: requested, declared: declared, open: open, inUse: inUse), expected, name
            )
        }
    }

    func testARefusalNamesTheLineAndBothSettings() {
        let line = MachineKey.rtu(realPath: "/dev/ttyUSB0")
        XCTAssertEqual(
            LineAccess.Refusal.configured(
                line: line, requested: LineSettings(baud: 9600), device: "press-a", declared: LineSettings()
            )
            .description,
            "rtu /dev/ttyUSB0: the job asks for baud=9600 parity=N data=8 stop=1, but the line is configured with baud=19200 parity=N data=8 stop=1 (device \"press-a\"); every unit on one serial line uses the line's settings: nothing was sent"
        )
        XCTAssertEqual(
            LineAccess.Refusal.inUse(line: line, requested: LineSettings(baud: 9600), open: LineSettings()).description,
            "rtu /dev/ttyUSB0 is open with baud=19200 parity=N data=8 stop=1 for a running job; this one needs baud=9600 parity=N data=8 stop=1: nothing was sent, try again when it has finished"
        )
        XCTAssertEqual(
            Endpoint.rtu(.init(path: "/dev/x", baud: 4800, parity: "O")).lineSettings, LineSettings(baud: 4800, parity: "O"))
        XCTAssertNil(Endpoint.tcp(host: "127.0.0.1", port: 502).lineSettings)
    }
}
