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
/// Killed (and the test failed) past `timeout`.
func runCLI(_ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 30) throws -> CLIResult {
    var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LASTSET_") }
    env.merge(environment) { $1 }
    let run = try ProgramRun.built("lastset", arguments, environment: env, timeout: timeout)
    if run.signal == SIGKILL { XCTFail("lastset \(arguments) did not exit within \(timeout) s") }
    return CLIResult(status: run.status, stdout: run.stdout, stderr: run.stderr)
}
