import Foundation
import LastsetCore
import LastsetHTTP
import TestSupport
import XCTest

/// The built CLI against a fake daemon serving canned API bodies: exact tables, JSON output, polling and exit codes.
final class FakeDaemonTests: XCTestCase {
    private func pretty(_ value: some Encodable) throws -> String {
        String(decoding: try APICoding.encoder(pretty: true).encode(value), as: UTF8.self) + "\n"
    }

    func testDevicesTable() throws {
        let daemon = try FakeDaemon(routes: ["GET /v1/devices": [FakeDaemon.json(Fixtures.devices)]])
        let result = try daemon.cli(["devices"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(
            result.stdout,
            """
            ID       ENDPOINT                       UNIT  PAGES            POLL  STATE        JOB    APPLIED             LAST ERROR
            press-1  tcp://127.0.0.1:15020             1  heating,cooling  10s   reachable    -      heating v3 drifted  -
            press-2  rtu:///dev/ttyUSB0?baud=19200    17  heating          0s    unreachable  apply  -                   timeout after 500ms
            bench    tcp://10.0.0.9:502              255  -                0s    unknown      -      -                   -

            """)
    }

    func testPagesTableAndJSON() throws {
        let daemon = try FakeDaemon(routes: ["GET /v1/pages": [FakeDaemon.json(Fixtures.pages)]])
        let result = try daemon.cli(["pages"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(
            result.stdout,
            """
            ID       TITLE    REGISTERS  DEVICES          LATEST  PROBLEM
            heating  Heating          5  press-1,press-2  v3      -
            cooling  -               12  -                none    v2: checksum mismatch

            """)
        // --json may come after the command too; the output is the API's body, pretty-printed with sorted keys.
        let json = try daemon.cli(["pages", "--json"])
        XCTAssertEqual(json.status, 0)
        XCTAssertEqual(json.stdout, try pretty(Fixtures.pages))
        XCTAssertTrue(json.stdout.hasPrefix("[\n  {\n    \"devices\" : [\n      \"press-1\","), json.stdout)
        XCTAssertEqual(try APICoding.decoder().decode([PageSummary].self, from: Data(json.stdout.utf8)), Fixtures.pages)
    }

    func testStatusShowsHealthAndRunningJobs() throws {
        let running = Fixtures.job(progress: JobProgress(phase: .writing, done: 2, total: 4))
        let done = Fixtures.job("j0", finished: true, replay: Fixtures.replaySucceeded)
        let daemon = try FakeDaemon(routes: [
            "GET /v1/health": [FakeDaemon.json(Fixtures.health)],
            "GET /v1/jobs": [FakeDaemon.json([running, done])],
        ])
        let result = try daemon.cli(["status"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(
            result.stdout,
            """
            daemon        ok (lastsetd 0.1.0)
            socket        \(daemon.socketPath)
            started       2027-01-15T08:00:00.000Z
            config        /etc/lastset/lastset.json
            data          /var/lib/lastset
            devices       3
            pages         2
            running jobs  1
            audit chain   intact

            JOB  KIND   PAGE     DEVICE   PHASE    PROGRESS  STARTED
            j1   apply  heating  press-2  writing       2/4  2027-01-15T08:00:00.000Z

            """)
        let json = try daemon.cli(["--json", "status"])
        XCTAssertEqual(json.stdout, try pretty(Fixtures.health))
    }

    func testTemplatesShowAndAudit() throws {
        let daemon = try FakeDaemon(routes: [
            "GET /v1/pages/heating/templates": [FakeDaemon.json(Fixtures.listings)],
            "GET /v1/pages/heating/templates/3": [FakeDaemon.json(Fixtures.template)],
            "GET /v1/audit?limit=2": [FakeDaemon.json(Fixtures.audit)],
        ])
        let templates = try daemon.cli(["templates", "heating"])
        XCTAssertEqual(templates.status, 0)
        XCTAssertEqual(
            templates.stdout,
            """
            VERSION  CAPTURED                  SOURCE   ENTRIES  CHECKSUM  PROBLEM
                  3  2027-01-15T08:00:01.500Z  press-1        4  ok        -
                  2  -                         -              -  BAD       checksum mismatch

            """)
        let show = try daemon.cli(["show", "heating", "--version", "3"])
        XCTAssertEqual(show.status, 0)
        XCTAssertEqual(
            show.stdout,
            """
            page       heating
            version    3
            captured   2027-01-15T08:00:01.500Z by uid:1000
            source     press-1 (tcp://127.0.0.1:15020, unit 1)
            identity   model = "AB"
            page hash  sha256:aa
            entries    3

            REGISTER          ADDRESS  LENGTH  VALUE  RAW       READ AT
            heating.mode          100       1  2      0002      2027-01-15T08:00:00.000Z
            heating.setpoint      101       1  -150   FF6A      2027-01-15T08:00:00.000Z
            heating.label         110       2  "L4"   4C340000  2027-01-15T08:00:00.000Z

            skipped:
            REGISTER        ADDRESS  REASON
            heating.energy      102  unset (still at its not-set default)
            comm.unit           200  not cloned (clone: false)

            """)
        let audit = try daemon.cli(["audit", "--limit", "2"])
        XCTAssertEqual(audit.status, 0)
        XCTAssertEqual(
            audit.stdout,
            """
            TIME                      KIND     WHO        PAGE     DEVICE   VERSION  RESULT   JOB       MESSAGE
            2027-01-15T08:00:01.500Z  replay   uid:1000   heating  press-2        3  failed   5e0c1a2b  heating.setpoint read back -100
            2027-01-15T08:00:00.000Z  capture  token:ops  heating  press-1        -  invalid  -         -
            1 unreadable line in the audit log

            """)
        XCTAssertEqual(
            daemon.received.map(\.route),
            [
                "GET /v1/pages/heating/templates", "GET /v1/pages/heating/templates/3", "GET /v1/pages/heating",
                "GET /v1/audit?limit=2",
            ])
    }

    func testDiffShowsBeforeAndExpected() throws {
        let daemon = try FakeDaemon(routes: [
            "GET /v1/pages/heating/diff?device=press-1&version=2": [FakeDaemon.json(Fixtures.diff)]
        ])
        let result = try daemon.cli(["diff", "heating", "--device", "press-1", "--version", "2"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(
            result.stdout,
            """
            dry run of heating v2 on press-1 (tcp://127.0.0.1:15020, unit 1): planned (nothing written)
            REGISTER          ADDRESS  STATUS     BEFORE  EXPECTED
            heating.mode          100  unchanged  2       2
            heating.setpoint      101  differs    35      -150
            plan: fc06 at 101, 1 register: heating.setpoint
            differs 1 / unchanged 1
            requests 1, write frames 0

            """)
    }

    /// A vendor list's Default (the register's factoryDefault) is shown as "factory" in a diff, apart
    /// from "(not set)".
    func testDiffMarksFactoryDefaults() throws {
        let page = PageDefinition(
            id: "heating",
            registers: [
                RegisterDefinition(registerId: "heating.mode", address: 100, type: .u16, factoryDefault: .unsigned(1)),
                RegisterDefinition(registerId: "heating.setpoint", address: 101, type: .s16, factoryDefault: .signed(35)),
            ])
        let daemon = try FakeDaemon(routes: [
            "GET /v1/pages/heating/diff?device=press-1&version=2": [FakeDaemon.json(Fixtures.diff)],
            "GET /v1/pages/heating": [FakeDaemon.json(page)],
        ])
        let result = try daemon.cli(["diff", "heating", "--device", "press-1", "--version", "2"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("heating.mode          100  unchanged  2             2"), result.stdout)
        XCTAssertTrue(result.stdout.contains("heating.setpoint      101  differs    35 (factory)  -150"), result.stdout)
    }

    func testApplyPollsUntilFinishedAndSucceeds() throws {
        // The audit job id (what `lastset certificate` takes) is printed last; the running job's id (j1) is not it.
        var replay = Fixtures.replaySucceeded
        replay.auditJob = "20EBC926-1F0B-4C55-9D3E-6A7B8C9D0E1F"
        let daemon = try FakeDaemon(routes: [
            "POST /v1/pages/heating/apply": [FakeDaemon.json(Fixtures.job(), status: 202)],
            "GET /v1/jobs/j1": [
                FakeDaemon.json(Fixtures.job(progress: JobProgress(phase: .writing, done: 1, total: 3))),
                FakeDaemon.json(Fixtures.job(progress: JobProgress(phase: .verifying, done: 3, total: 3))),
                FakeDaemon.json(Fixtures.job(finished: true, replay: replay)),
            ],
        ])
        let result = try daemon.cli(["apply", "heating", "--to", "press-2", "--version", "3"])
        XCTAssertEqual(result.status, 0, result.stderr)
        // stdout is a file here, not a terminal: no progress bar.
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(
            result.stdout,
            """
            apply heating v3 to press-2 (tcp://127.0.0.1:15021, unit 1): succeeded
            identity matches: model
            beforeWrite[0] write 6868 to 1536: ok
            afterWrite[0] write 0 to 2304: ok
            REGISTER          ADDRESS  STATUS    EXPECTED  ACTUAL
            heating.mode          100  verified  2         2
            heating.setpoint      101  verified  -150      -150
            heating.label         110  verified  "L4"      "L4"
            verified 3 / mismatch 0 / rejected 0 / failed 0 / not attempted 0
            requests 6, write frames 4
            audit job 20EBC926-1F0B-4C55-9D3E-6A7B8C9D0E1F

            """)
        XCTAssertEqual(
            daemon.received,
            [
                .init(route: "POST /v1/pages/heating/apply", body: #"{"device":"press-2","version":3}"#),
                .init(route: "GET /v1/jobs/j1", body: ""),
                .init(route: "GET /v1/jobs/j1", body: ""),
                .init(route: "GET /v1/jobs/j1", body: ""),
                // The register table shows values scaled with their unit: the page's definition says how.
                .init(route: "GET /v1/pages/heating", body: ""),
            ])
    }

    func testApplyWithMismatchAndRollbackExitsOne() throws {
        let finished = Fixtures.job(finished: true, replay: Fixtures.replayRolledBack)
        let daemon = try FakeDaemon(routes: [
            "POST /v1/pages/heating/apply": [FakeDaemon.json(Fixtures.job(), status: 202)],
            "GET /v1/jobs/j1": [FakeDaemon.json(finished)],
        ])
        let result = try daemon.cli(["apply", "heating", "--to", "press-2", "--on-error", "rollback"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(
            result.stdout,
            """
            apply heating v3 to press-2 (tcp://127.0.0.1:15021, unit 1): FAILED
            warning: page definition changed since capture
            afterWrite[0] write 0 to 2304: not attempted
            REGISTER          ADDRESS  STATUS         BEFORE  EXPECTED  ACTUAL  NOTE
            heating.mode          100  verified       0       2         2       -
            heating.setpoint      101  mismatch       200     -150      -100    -
            heating.limit         105  rejected       1       7         -       exception 3: illegal data value
            heating.label         110  not attempted  -       "L4"      -       -
            verified 1 / mismatch 1 / rejected 1 / failed 0 / not attempted 1
            stopped at: after heating.setpoint
            reason: heating.setpoint read back -100, expected -150
            note: the device refused FC16; the values were written with FC06
            rollback: restored (2 registers verified)
            requests 11, write frames 6

            """)
        XCTAssertEqual(daemon.received.first?.body, #"{"device":"press-2","onError":"rollback"}"#)

        let json = try daemon.cli(["--json", "apply", "heating", "--to", "press-2", "--on-error", "rollback"])
        XCTAssertEqual(json.status, 1)
        XCTAssertEqual(json.stdout, try pretty(finished))
    }

    func testDryRunToAnEndpointFinishedAtOnce() throws {
        var report = Fixtures.diff
        report.target = "tcp://127.0.0.1:15099"
        report.endpoint = "tcp://127.0.0.1:15099"
        report.unit = 4
        // The daemon may answer the POST with a job that is already finished: no poll then.
        let daemon = try FakeDaemon(routes: [
            "POST /v1/pages/heating/apply": [
                FakeDaemon.json(Fixtures.job(device: "tcp://127.0.0.1:15099", finished: true, replay: report))
            ]
        ])
        let result = try daemon.cli(["apply", "heating", "--to", "tcp://127.0.0.1:15099", "--unit", "4", "--dry-run"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stdout.hasPrefix(
                "dry run of heating v2 on tcp://127.0.0.1:15099, unit 4: planned (nothing written)\n"),
            result.stdout)
        XCTAssertEqual(
            daemon.received,
            [
                .init(
                    route: "POST /v1/pages/heating/apply", body: #"{"dryRun":true,"endpoint":"tcp://127.0.0.1:15099","unit":4}"#),
                .init(route: "GET /v1/pages/heating", body: ""),
            ])
    }

    func testRefusedApplyExitsOne() throws {
        let daemon = try FakeDaemon(routes: [
            "POST /v1/pages/heating/apply": [FakeDaemon.json(Fixtures.job(), status: 202)],
            "GET /v1/jobs/j1": [FakeDaemon.json(Fixtures.job(finished: true, replay: Fixtures.refused))],
        ])
        let result = try daemon.cli(["apply", "heating", "--to", "tcp://127.0.0.1:15099", "--unit", "4"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stdout.contains("REFUSED (nothing written)\nIDENTITY  EXPECTED  ACTUAL  PROBLEM\n"), result.stdout)
    }

    func testCaptureArchivedAndInvalid() throws {
        let daemon = try FakeDaemon(routes: [
            "POST /v1/pages/heating/capture": [
                FakeDaemon.json(Fixtures.job("c1", kind: .capture, device: "press-1"), status: 202),
                FakeDaemon.json(Fixtures.job("c2", kind: .capture, device: "press-1"), status: 202),
            ],
            "GET /v1/jobs/c1": [
                FakeDaemon.json(
                    Fixtures.job(
                        "c1", kind: .capture, device: "press-1", progress: JobProgress(phase: .reading, done: 1, total: 2))),
                FakeDaemon.json(
                    Fixtures.job("c1", kind: .capture, device: "press-1", finished: true, capture: Fixtures.captureArchived)),
            ],
            "GET /v1/jobs/c2": [
                FakeDaemon.json(
                    Fixtures.job("c2", kind: .capture, device: "press-1", finished: true, capture: Fixtures.captureInvalid))
            ],
        ])
        let archived = try daemon.cli(["capture", "heating", "--from", "press-1"])
        XCTAssertEqual(archived.status, 0, archived.stderr)
        XCTAssertEqual(
            archived.stdout,
            """
            capture of heating from press-1: archived as version 4 (3 entries, 2 read requests)
            skipped 1 register:
            REGISTER   ADDRESS  REASON
            comm.unit      200  not cloned (clone: false)

            """)
        let invalid = try daemon.cli(["capture", "heating", "--from", "press-1"])
        XCTAssertEqual(invalid.status, 1)
        XCTAssertEqual(invalid.stderr, "")
        XCTAssertEqual(
            invalid.stdout,
            """
            capture of heating from press-1 is INVALID: 2 bad registers; nothing archived, the previous template stays current
            REGISTER          ADDRESS  VALUE  RAW   PROBLEM
            heating.setpoint      101  950    03B6  above max 900
            heating.label         110  -      -     read failed: timeout

            """)
        XCTAssertEqual(
            daemon.received.map(\.route),
            [
                "POST /v1/pages/heating/capture", "GET /v1/jobs/c1", "GET /v1/jobs/c1", "POST /v1/pages/heating/capture",
                "GET /v1/jobs/c2", "GET /v1/pages/heating",
            ])
        XCTAssertEqual(daemon.received[0].body, #"{"device":"press-1"}"#)
    }

    func testDeviceBusyAndOtherAPIErrorsExitOne() throws {
        let daemon = try FakeDaemon(routes: [
            "POST /v1/pages/heating/capture": [
                .error(409, code: "device_busy", message: "device \"press-1\" is busy with a replay")
            ],
            "GET /v1/devices": [.text(500, "internal trouble")],
        ])
        let busy = try daemon.cli(["capture", "heating", "--from", "press-1"])
        XCTAssertEqual(
            busy, CLIResult(status: 1, stdout: "", stderr: "error: device \"press-1\" is busy with a replay (device_busy)\n"))
        let notFound = try daemon.cli(["show", "nope"])
        XCTAssertEqual(notFound.status, 1)
        XCTAssertEqual(
            notFound.stderr, "error: the fake daemon has no route \"GET /v1/pages/nope/templates/latest\" (no_route)\n")
        let plain = try daemon.cli(["devices"])
        XCTAssertEqual(plain.status, 1)
        XCTAssertEqual(plain.stderr, "error: the daemon answered GET /v1/devices with HTTP 500: internal trouble\n")
    }

    func testJobThatCouldNotRunAndJobLostWhilePolling() throws {
        let daemon = try FakeDaemon(routes: [
            "POST /v1/pages/heating/apply": [
                FakeDaemon.json(Fixtures.job(), status: 202), FakeDaemon.json(Fixtures.job("j9"), status: 202),
            ],
            "GET /v1/jobs/j1": [
                FakeDaemon.json(Fixtures.job(finished: true, error: "template v3 is corrupt: checksum mismatch"))
            ],
            "GET /v1/jobs/j9": [.error(503, code: "shutting_down", message: "lastsetd is shutting down")],
        ])
        let corrupt = try daemon.cli(["apply", "heating", "--to", "press-2"])
        XCTAssertEqual(corrupt.status, 1)
        XCTAssertEqual(corrupt.stdout, "apply of heating on press-2 failed: template v3 is corrupt: checksum mismatch\n")
        let lost = try daemon.cli(["apply", "heating", "--to", "press-2"])
        XCTAssertEqual(lost.status, 1)
        XCTAssertEqual(lost.stdout, "")
        XCTAssertEqual(
            lost.stderr,
            "error: lost track of job j9 (apply of heating on press-2): lastsetd is shutting down (shutting_down)\n")
    }

    func testMalformedReplyIsReportedWithItsPath() throws {
        let daemon = try FakeDaemon(routes: ["GET /v1/pages": [.json(200, ["not": "a list"])]])
        let result = try daemon.cli(["pages"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.hasPrefix("error: unexpected reply to GET /v1/pages: "), result.stderr)
    }

    /// `export --output FILE` never replaces a file silently: an existing FILE is refused, named, before the daemon
    /// is asked, and left as it was; `--force` replaces it (a regular file only: never through a link).
    func testExportRefusesAnExistingFileUnlessForced() throws {
        let file = try TemplateFile.encode(Fixtures.template)
        let daemon = try FakeDaemon(routes: [
            "GET /v1/pages/heating/templates/latest/file": [
                HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: [UInt8](file))
            ]
        ])
        let directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-cli")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/heating.json"
        try Data("kept\n".utf8).write(to: URL(fileURLWithPath: path))

        let refused = try daemon.cli(["export", "heating", "--output", path])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.stdout, "")
        XCTAssertEqual(refused.stderr, "error: \(path) already exists: give --force to replace it, or choose another FILE\n")
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "kept\n")
        XCTAssertEqual(daemon.received.count, 0, "the daemon is not asked for a file that cannot be written")

        let forced = try daemon.cli(["export", "heating", "--output", path, "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(forced.stdout, "exported heating version 3 to \(path) (\(file.count) bytes)\n")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), file)

        // Not even --force writes through a link.
        let link = directory + "/link.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        let throughLink = try daemon.cli(["export", "heating", "--output", link, "--force"])
        XCTAssertEqual(throughLink.status, 1)
        XCTAssertTrue(throughLink.stderr.hasPrefix("error: \(link) is a symbolic link"), throughLink.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), file)

        let forceAlone = try daemon.cli(["export", "heating", "--force"])
        XCTAssertEqual(forceAlone.status, 64)
        XCTAssertTrue(forceAlone.stderr.hasPrefix("error: --force replaces the --output FILE: give one"), forceAlone.stderr)
    }

    func testExportAndImportKeepTheFileByteForByte() throws {
        let file = try TemplateFile.encode(Fixtures.template)
        let daemon = try FakeDaemon(routes: [
            "GET /v1/pages/heating/templates/latest/file": [
                HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: [UInt8](file))
            ],
            "POST /v1/pages/heating/templates": [FakeDaemon.json(Fixtures.template, status: 201)],
        ])
        let toStdout = try daemon.cli(["export", "heating"])
        XCTAssertEqual(toStdout.status, 0)
        XCTAssertEqual(toStdout.stdout, String(decoding: file, as: UTF8.self))

        let directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-cli")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/heating-v3.json"
        let toFile = try daemon.cli(["export", "heating", "--output", path])
        XCTAssertEqual(toFile.status, 0, toFile.stderr)
        XCTAssertEqual(toFile.stdout, "exported heating version 3 to \(path) (\(file.count) bytes)\n")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), file)

        let imported = try daemon.cli(["import", path])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(imported.stdout, "imported \(path) as heating version 3 (3 entries, captured 2027-01-15T08:00:01.500Z)\n")
        XCTAssertEqual(
            daemon.received.last, .init(route: "POST /v1/pages/heating/templates", body: String(decoding: file, as: UTF8.self)))

        // A damaged file is refused here, before anything is sent.
        var damaged = String(decoding: file, as: UTF8.self)
        damaged = damaged.replacingOccurrences(of: "\"FF6A\"", with: "\"FF6B\"")
        try damaged.write(toFile: path, atomically: true, encoding: .utf8)
        let count = daemon.received.count
        let refused = try daemon.cli(["import", path])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(
            refused.stderr.hasPrefix("error: \"\(path)\" is not a usable template file: checksum mismatch"), refused.stderr)
        XCTAssertEqual(daemon.received.count, count)
    }
}
