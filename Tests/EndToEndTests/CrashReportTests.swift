import Foundation
import TestSupport
import XCTest

/// The test process's crash report (Tests/CrashReport): in a container the Swift backtracer stops after
/// the first frame, so a crash on CI named neither its test nor its code. The report must name the
/// signal, the thread and the crashing function with its file and line.
final class CrashReportTests: XCTestCase {
    private func crash(_ how: String) throws -> (status: Int32, reason: Process.TerminationReason, output: String) {
        let process = Process()
        process.executableURL = try TestPaths.executable("crash-report-probe")
        process.arguments = [how]
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason, output)
    }

    func testAnAbortOnAWorkerThreadIsReportedWithItsFunctionFileAndLine() throws {
        let (status, reason, output) = try crash("abort")
        XCTAssertEqual(reason, .uncaughtSignal, output)
        XCTAssertEqual(status, SIGABRT, output)
        XCTAssertTrue(output.contains("=== crash-report: signal 6 (Aborted) on thread "), output)
        XCTAssertTrue(output.contains("failOnWorker"), output)
        XCTAssertTrue(output.contains("CrashReportProbe/main.swift:14"), output)
        XCTAssertTrue(output.contains("=== end of crash-report ==="), output)
    }

    func testASegmentationFaultIsReportedAndStillEndsTheProcessWithItsSignal() throws {
        let (status, reason, output) = try crash("segv")
        XCTAssertEqual(reason, .uncaughtSignal, output)
        XCTAssertEqual(status, SIGSEGV, output)
        XCTAssertTrue(output.contains("=== crash-report: signal 11 (Segmentation fault) on thread "), output)
        XCTAssertTrue(output.contains("CrashReportProbe/main.swift:12"), output)
    }
}
