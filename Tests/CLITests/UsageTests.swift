import TestSupport
import XCTest
import LastsetSystem

@testable import lastset

/// The built binary's command-line handling: help on stdout with 0, usage errors on stderr with 64.
final class UsageTests: XCTestCase {
    /// A socket nobody listens on: usage errors must be found before any connection is tried.
    private let nowhere = "/tmp/lastset-cli-nowhere/api.sock"

    private func assertUsageError(
        _ arguments: [String], _ stderr: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let result = try runCLI(["--socket", nowhere] + arguments)
        XCTAssertEqual(result.status, 64, file: file, line: line)
        XCTAssertEqual(result.stdout, "", file: file, line: line)
        XCTAssertEqual(result.stderr, stderr, file: file, line: line)
    }

    func testNoArgumentsAndHelpPrintTheCommandList() throws {
        for arguments in [[], ["--help"], ["-h"]] {
            let result = try runCLI(arguments)
            XCTAssertEqual(result.status, 0)
            XCTAssertEqual(result.stderr, "")
            XCTAssertEqual(result.stdout, LastsetCLI.help + "\n")
        }
        let lines = LastsetCLI.help.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(
            lines.first, "OVERVIEW: Capture Modbus parameter pages from a reference machine and replay them to new machines.")
        for name in [
            "devices", "pages", "status", "capture", "apply", "templates", "show", "diff", "export", "import", "audit",
            "import-map",
        ] {
            XCTAssertTrue(lines.contains { $0.hasPrefix("  \(name) ") }, "help lists \(name)")
        }
    }

    func testVersion() throws {
        XCTAssertEqual(try runCLI(["--version"]), CLIResult(status: 0, stdout: "lastset 0.1.0\n", stderr: ""))
    }

    func testCaptureHelpExactly() throws {
        let result = try runCLI(["capture", "--help"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(
            result.stdout,
            """
            OVERVIEW: Capture a page from a reference device and archive it as the next template version.

            Reads the page fresh from the device, validates every register and archives the template. A capture with
            invalid values archives nothing and lists each bad register; the previous template stays current.
            Exit status: 0 when archived, 1 otherwise.

            USAGE: lastset capture PAGE --from DEVICE [GLOBAL OPTIONS]

            ARGUMENTS:
              PAGE  Page id, e.g. heating

            OPTIONS:
              --from DEVICE  Configured id of the reference device

            GLOBAL OPTIONS:
              --socket PATH  The daemon's API socket (default: $LASTSET_SOCKET, else /run/lastset/api.sock)
              --json         Print the API's JSON instead of tables
              --raw          Show register values as stored, not scaled with their unit
              -h, --help     Show help for the command

            """)
    }

    func testEveryCommandHasHelpOnStdout() throws {
        for command in LastsetCLI.commands {
            let name = command.spec.name
            // --help wins even over arguments that would be a usage error.
            let result = try runCLI([name, "--no-such-option", "--help"])
            XCTAssertEqual(result.status, 0, name)
            XCTAssertEqual(result.stderr, "", name)
            XCTAssertEqual(result.stdout, command.spec.help + "\n", name)
            XCTAssertTrue(result.stdout.contains("USAGE: lastset \(name)"), name)
        }
    }

    func testUnknownCommand() throws {
        try assertUsageError(["frobnicate"], "error: unknown command \"frobnicate\"\nsee \"lastset --help\"\n")
        try assertUsageError(["frobnicate", "--help"], "error: unknown command \"frobnicate\"\nsee \"lastset --help\"\n")
    }

    func testUnknownOptions() throws {
        try assertUsageError(["--verbose", "devices"], "error: unknown option \"--verbose\"\nsee \"lastset --help\"\n")
        try assertUsageError(
            ["capture", "heating", "--frm", "press-1"],
            """
            error: unknown option "--frm" for "lastset capture"
            usage: lastset capture PAGE --from DEVICE
            see "lastset capture --help"

            """)
        // --version belongs to the root command, and to commands that take a template version.
        try assertUsageError(
            ["devices", "--version"],
            """
            error: unknown option "--version" for "lastset devices"
            usage: lastset devices
            see "lastset devices --help"

            """)
    }

    func testMissingArgumentsAndOptions() throws {
        try assertUsageError(
            ["capture", "--from", "press-1"],
            """
            error: missing argument PAGE (page id, e.g. heating)
            usage: lastset capture PAGE --from DEVICE
            see "lastset capture --help"

            """)
        try assertUsageError(
            ["capture", "heating"],
            """
            error: missing option --from DEVICE
            usage: lastset capture PAGE --from DEVICE
            see "lastset capture --help"

            """)
        try assertUsageError(
            ["capture", "heating", "--from"],
            """
            error: option --from needs a value (--from DEVICE)
            usage: lastset capture PAGE --from DEVICE
            see "lastset capture --help"

            """)
        try assertUsageError(
            ["templates", "heating", "cooling"],
            """
            error: unexpected argument "cooling"
            usage: lastset templates PAGE
            see "lastset templates --help"

            """)
        try assertUsageError(["--socket"], "error: option --socket needs a value (--socket PATH)\nsee \"lastset --help\"\n")
    }

    func testBadValuesAreQuoted() throws {
        let applyUsage =
            "usage: lastset apply [PAGE] --to DEVICE|ENDPOINT [--unit N] [--dry-run] [--version N] [--on-error stop|continue|rollback] [--all] [--continue] [--last-verified] [--expect-version ID|PAGE=ID,…] [--reason TEXT]\nsee \"lastset apply --help\"\n"
        try assertUsageError(
            ["apply", "heating", "--to", "press-1", "--on-error", "retry"],
            "error: --on-error must be stop, continue or rollback (got \"retry\")\n" + applyUsage)
        try assertUsageError(
            ["apply", "heating", "--to", "press-1", "--version", "latest"],
            "error: --version must be a version number N or a fleet id HOST-N (got \"latest\")\n" + applyUsage)
        try assertUsageError(
            ["apply", "heating", "--to", "tcp://10.0.0.5", "--unit", "2"],
            "error: --to: bad endpoint \"tcp://10.0.0.5\": missing ':port'\n" + applyUsage)
        try assertUsageError(
            ["apply", "heating", "--to", "tcp://10.0.0.5:502", "--unit", "256"],
            "error: --unit must be an integer in 1...247 (got \"256\")\n" + applyUsage)
        // Unit 0 is broadcast: refused as a usage error (64) before the daemon is asked.
        try assertUsageError(
            ["apply", "heating", "--to", "tcp://10.0.0.5:502", "--unit", "0"],
            "error: --unit must be an integer in 1...247 (got \"0\")\n" + applyUsage)
        try assertUsageError(
            ["apply", "heating", "--to", "press-1", "--unit", "2"],
            "error: --unit 2 applies only to an endpoint; device \"press-1\" has its unit in the config\n" + applyUsage)
        try assertUsageError(
            ["apply", "heating", "--all", "--to", "press-1"],
            "error: give PAGE or --all, not both (--all applies every page of the device)\n" + applyUsage)
        try assertUsageError(
            ["apply", "--all", "--to", "tcp://10.0.0.5:502"],
            "error: --all needs a configured device for --to (its pages come from the config), not an endpoint\n" + applyUsage)
        try assertUsageError(["apply", "--to", "press-1"], "error: missing argument PAGE (or --all)\n" + applyUsage)
        try assertUsageError(
            ["apply", "heating", "--to", "press-1", "--last-verified"],
            "error: --last-verified goes with --all (one page's older version: --version N)\n" + applyUsage)
        try assertUsageError(
            ["apply", "../etc", "--to", "press-1"],
            "error: invalid page id \"../etc\" (expected [A-Za-z0-9][A-Za-z0-9._-]*, at most 64 characters)\n" + applyUsage)
        try assertUsageError(
            ["audit", "--result", "failed,oops"],
            "error: --result: \"oops\" is not one of started, archived, invalid, unchanged, deleted, succeeded, failed, refused, planned, interrupted\nusage: lastset audit [ACTION] [--limit N] [--all-hosts] [--page PAGE] [--device DEVICE] [--who PRINCIPAL] [--result RESULTS] [--kind KINDS] [--since TIME] [--until TIME] [--job ID] [--reason TEXT]\nsee \"lastset audit --help\"\n"
        )
        try assertUsageError(
            ["audit", "--limit", "0"],
            "error: --limit must be an integer in 1...10000 (got \"0\")\nusage: lastset audit [ACTION] [--limit N] [--all-hosts] [--page PAGE] [--device DEVICE] [--who PRINCIPAL] [--result RESULTS] [--kind KINDS] [--since TIME] [--until TIME] [--job ID] [--reason TEXT]\nsee \"lastset audit --help\"\n"
        )
        try assertUsageError(
            ["audit", "--limit", "10001"],
            "error: --limit must be an integer in 1...10000 (got \"10001\")\nusage: lastset audit [ACTION] [--limit N] [--all-hosts] [--page PAGE] [--device DEVICE] [--who PRINCIPAL] [--result RESULTS] [--kind KINDS] [--since TIME] [--until TIME] [--job ID] [--reason TEXT]\nsee \"lastset audit --help\"\n"
        )
        try assertUsageError(
            ["diff", "heating", "--device", "a/b"],
            """
            error: invalid device id "a/b" for --device (expected [A-Za-z0-9][A-Za-z0-9._-]*, at most 64 characters)
            usage: lastset diff PAGE [--device DEVICE] [--version N] [--against N]
            see "lastset diff --help"

            """)
    }

    func testBadSocketIsAUsageError() throws {
        let result = try runCLI(["--socket", "api.sock", "devices"])
        XCTAssertEqual(result.status, 64)
        XCTAssertEqual(
            result.stderr,
            "error: --socket: invalid API endpoint \"api.sock\" (expected a socket path, unix:PATH or http://HOST:PORT)\nsee \"lastset --help\"\n"
        )
        let fromEnvironment = try runCLI(["pages"], environment: ["LASTSET_SOCKET": "tcp://x"])
        XCTAssertEqual(fromEnvironment.status, 64)
        XCTAssertEqual(
            fromEnvironment.stderr,
            "error: LASTSET_SOCKET: invalid API endpoint \"tcp://x\" (expected a socket path, unix:PATH or http://HOST:PORT)\nsee \"lastset --help\"\n"
        )
        // What is wrong in a host:port is said, not only that it is wrong.
        let noPort = try runCLI(["--socket", "http://127.0.0.1", "devices"])
        XCTAssertEqual(noPort.status, 64)
        XCTAssertEqual(
            noPort.stderr,
            "error: --socket: invalid API endpoint \"http://127.0.0.1\": missing ':port' (expected a socket path, unix:PATH or http://HOST:PORT)\nsee \"lastset --help\"\n"
        )
    }

    func testCannotConnectExitsOneNamingTheSocket() throws {
        let result = try runCLI(["--socket", nowhere, "devices"])
        XCTAssertEqual(
            result,
            CLIResult(
                status: 1, stdout: "",
                stderr: "error: cannot connect to \(nowhere): No such file or directory (is lastsetd running?)\n"))
        let fromEnvironment = try runCLI(["status"], environment: ["LASTSET_SOCKET": nowhere])
        XCTAssertEqual(fromEnvironment.status, 1)
        XCTAssertEqual(
            fromEnvironment.stderr, "error: cannot connect to \(nowhere): No such file or directory (is lastsetd running?)\n")
    }

    func testConnectionRefusedOnAStaleSocketFile() throws {
        let directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-cli")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/api.sock"
        // Bind and close without listening: the file stays, nobody accepts.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let bound = try UnixSocketAddress(path).withSockaddr { bind(fd, $0, $1) }
        XCTAssertEqual(bound, 0)
        close(fd)
        let result = try runCLI(["--socket", path, "pages"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "error: cannot connect to \(path): Connection refused (is lastsetd running?)\n")
    }
}
