import Foundation
import TestSupport
import XCTest

/// The test process's crash report (Tests/CrashReport): in a container the Swift backtracer stops after
/// the first frame, so a crash on CI named neither its test nor its code. The report must name the
/// signal, the thread and the crashing function with its file and line.
final class CrashReportTests: XCTestCase {
    /// The signal that ended the probe and what it wrote to stderr.
    private func crash(_ how: String) throws -> (signal: Int32?, output: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let run = try ProgramRun.built("crash-report-probe", [how], environment: environment)
        return (run.signal, run.stderr)
    }

    func testAnAbortOnAWorkerThreadIsReportedWithItsFunctionFileAndLine() throws {
        let (signal, output) = try crash("abort")
        XCTAssertEqual(signal, SIGABRT, output)
        XCTAssertTrue(output.contains("=== crash-report: signal 6 (Aborted) on thread "), output)
        XCTAssertTrue(output.contains("failOnWorker"), output)
        XCTAssertTrue(output.contains("CrashReportProbe/main.swift:14"), output)
        XCTAssertTrue(output.contains("=== end of crash-report ==="), output)
    }

    func testASegmentationFaultIsReportedAndStillEndsTheProcessWithItsSignal() throws {
        let (signal, output) = try crash("segv")
        XCTAssertEqual(signal, SIGSEGV, output)
        XCTAssertTrue(output.contains("=== crash-report: signal 11 (Segmentation fault) on thread "), output)
        XCTAssertTrue(output.contains("CrashReportProbe/main.swift:12"), output)
    }
}
