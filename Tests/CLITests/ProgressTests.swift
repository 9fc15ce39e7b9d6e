import Foundation
import LastsetCore
import TestSupport
import XCTest

/// The progress bar appears on stderr only when stdout is a terminal (here: a pty made by util-linux `script`).
final class ProgressTests: XCTestCase {
    func testProgressBarIsDrawnOnATerminalAndCleared() throws {
        // script(1) (bsdutils, installed by scripts/setup.sh) is required: its absence fails the test.
        XCTAssertTrue(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script(1) is not installed (run scripts/setup.sh)")
        let daemon = try FakeDaemon(routes: [
            "POST /v1/pages/heating/apply": [FakeDaemon.json(Fixtures.job(), status: 202)],
            "GET /v1/jobs/j1": [
                FakeDaemon.json(Fixtures.job(progress: JobProgress(phase: .writing, done: 1, total: 4))),
                FakeDaemon.json(Fixtures.job(finished: true, replay: Fixtures.replaySucceeded)),
            ],
        ])
        let binary = try TestPaths.executable("lastset").path
        // script runs the command on a pty (stdout and stderr both) and copies everything to its own stdout.
        let result = try runProgram(
            "/usr/bin/script", ["-qec", "\(binary) --socket \(daemon.socketPath) apply heating --to press-2", "/dev/null"])
        XCTAssertEqual(result.status, 0, result.stdout)
        let bar = "\r" + "apply heating [--------------------] starting" + "\u{1B}[K"
        let second = "\r" + "apply heating [#####---------------] writing 1/4" + "\u{1B}[K"
        let clear = "\r\u{1B}[K"
        XCTAssertTrue(
            result.stdout.hasPrefix(
                bar + second + clear + "apply heating v3 to press-2 (tcp://127.0.0.1:15021, unit 1): succeeded\r\n"),
            result.stdout.debugDescription)
    }

    private func runProgram(_ path: String, _ arguments: [String]) throws -> CLIResult {
        let run = try ProgramRun.run(URL(fileURLWithPath: path), arguments)
        return CLIResult(status: run.status, stdout: run.stdout, stderr: "")
    }
}
