import Foundation
import LastsetHTTP
import TestSupport
import XCTest

/// An independent client (curl) against the server: keep-alive reuse, chunked upload, Expect: 100-continue.
final class CurlInteropTests: XCTestCase {
    private func curl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let run = try ProgramRun.run(
            URL(fileURLWithPath: "/usr/bin/curl"), ["--silent", "--show-error", "--max-time", "10"] + arguments)
        return (run.status, run.stdout)
    }

    func testCurlKeepAliveChunkedAndExpectContinue() throws {
        // curl is installed by scripts/setup.sh (make test): its absence is a failure, not a skip.
        XCTAssertTrue(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl is not installed (run scripts/setup.sh)")
        let directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-http")
        defer { TestPaths.remove(directory) }
        let socket = directory + "/api.sock"
        let server = try HTTPServer(configuration: .init(unixSocketPath: socket, maxBodyBytes: 100_000)) { request in
            .text(200, "\(request.method) \(request.path) \(request.body.count)")
        }
        try server.start()
        defer { server.stop() }

        // Two URLs in one invocation reuse the connection.
        let twice = try curl(["--unix-socket", socket, "http://localhost/a", "http://localhost/b"])
        XCTAssertEqual(twice.status, 0)
        XCTAssertEqual(twice.output, "GET /a 0\nGET /b 0\n")

        let chunked = try curl([
            "--unix-socket", socket, "-H", "Transfer-Encoding: chunked", "--data-binary", String(repeating: "c", count: 5000),
            "http://localhost/chunked",
        ])
        XCTAssertEqual(chunked.output, "POST /chunked 5000\n")

        let bodyFile = directory + "/body.bin"
        try Data(repeating: 0x61, count: 90_000).write(to: URL(fileURLWithPath: bodyFile))
        let expect = try curl([
            "--unix-socket", socket, "-H", "Expect: 100-continue", "--data-binary", "@" + bodyFile, "http://localhost/big",
        ])
        XCTAssertEqual(expect.output, "POST /big 90000\n")

        try Data(repeating: 0x61, count: 200_000).write(to: URL(fileURLWithPath: bodyFile))
        let tooBig = try curl([
            "--unix-socket", socket, "-H", "Expect: 100-continue", "--data-binary", "@" + bodyFile,
            "-o", "/dev/null", "-w", "%{http_code}", "http://localhost/big",
        ])
        XCTAssertEqual(tooBig.output, "413")
    }
}
