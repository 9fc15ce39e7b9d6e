import Foundation
import Glibc
import TestSupport
import XCTest

/// What one run of the built `lastset` binary printed and how it exited.
struct CLIResult: Equatable {
    /// The exit status.
    var status: Int32
    /// Everything written to stdout.
    var stdout: String
    /// Everything written to stderr.
    var stderr: String
}

/// Runs the built `lastset` with `arguments`; the environment is the test's own minus `LASTSET_*`, plus `environment`.
///
/// Output goes to files (not pipes) so a large stdout can never block the child while stderr is being read.
func runCLI(_ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 30) throws -> CLIResult {
    let directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-cli")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let outPath = directory + "/stdout"
    let errPath = directory + "/stderr"
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    let out = try XCTUnwrap(FileHandle(forWritingAtPath: outPath))
    let err = try XCTUnwrap(FileHandle(forWritingAtPath: errPath))
    let process = Process()
    process.executableURL = try TestPaths.executable("lastset")
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LASTSET_") }
    env.merge(environment) { $1 }
    process.environment = env
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning {
        if Date() > deadline {
            kill(process.processIdentifier, SIGKILL)
            process.waitForExit()
            XCTFail("lastset \(arguments) did not exit within \(timeout) s")
            break
        }
        usleep(5_000)
    }
    let status = process.waitForExit()
    try out.close()
    try err.close()
    return CLIResult(
        status: status,
        stdout: try String(contentsOfFile: outPath, encoding: .utf8),
        stderr: try String(contentsOfFile: errPath, encoding: .utf8))
}
