import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// The one runner of programs in the tests: it reads both pipes at once (a program filling stderr while stdout is
/// read cannot block it), closes them, feeds stdin, merges when asked and kills past its bound.
final class ProgramRunTests: XCTestCase {
    private let sh = URL(fileURLWithPath: "/bin/sh")

    func testAProgramFillingBothPipesRunsToItsEnd() throws {
        // 1 MiB to stderr first, then 1 MiB to stdout: reading stdout to its end before stderr (the runners this one
        // replaced) blocks for good once stderr's 64 KiB pipe is full.
        let started = Date()
        let run = try ProgramRun.run(
            sh, ["-c", "head -c 1048576 /dev/zero >&2; head -c 1048576 /dev/zero; echo done >&2"], timeout: 30)
        XCTAssertEqual(run.status, 0)
        XCTAssertNil(run.signal)
        XCTAssertEqual(run.stdoutData.count, 1 << 20)
        XCTAssertEqual(run.stderrData.count, (1 << 20) + 5)
        XCTAssertTrue(run.stderr.hasSuffix("done\n"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 20)
    }

    func testItsPipesAndInputFileAreClosed() throws {
        let before = try openDescriptors()
        for _ in 0..<20 {
            _ = try ProgramRun.run(sh, ["-c", "cat; echo err >&2"], input: Data("in".utf8))
        }
        XCTAssertEqual(try openDescriptors(), before)
    }

    func testInputMergingAndEnvironment() throws {
        let input = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        let cat = try ProgramRun.run(URL(fileURLWithPath: "/bin/cat"), [], input: input)
        XCTAssertEqual(cat.stdoutData, input)
        let merged = try ProgramRun.run(sh, ["-c", "echo one; echo two >&2; echo three"], mergingStderr: true)
        XCTAssertEqual(merged.stdout, "one\ntwo\nthree\n")
        XCTAssertTrue(merged.stderrData.isEmpty)
        let env = try ProgramRun.run(sh, ["-c", "echo \"$LASTSET_PROBE\"; exit 3"], environment: ["LASTSET_PROBE": "x y"])
        XCTAssertEqual(env.stdout, "x y\n")
        XCTAssertEqual(env.status, 3)
        let here = try ProgramRun.run(sh, ["-c", "pwd"], in: URL(fileURLWithPath: "/tmp"))
        XCTAssertEqual(here.stdout, "/tmp\n")
    }

    func testAProgramPastItsBoundIsKilled() throws {
        let started = Date()
        let run = try ProgramRun.run(sh, ["-c", "exec sleep 30"], timeout: 0.5)
        XCTAssertEqual(run.signal, SIGKILL)
        XCTAssertEqual(run.status, 128 + SIGKILL)
        XCTAssertLessThan(Date().timeIntervalSince(started), 15)
    }

    func testTheFreePortIsFree() throws {
        let port = try TestPorts.freeLoopbackPort()
        XCTAssertTrue((1...65535).contains(port))
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(bound, 0, "errno \(errno)")
    }

    private func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }
}
