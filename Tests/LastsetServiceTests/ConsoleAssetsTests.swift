import Foundation
import LastsetHTTP
import TestSupport
import XCTest

@testable import LastsetService

/// The console built into lastsetd is exactly `Console/` (scripts/embed-console.py was run), and is served
/// with its type, an ETag and a Content-Security-Policy that allows nothing from elsewhere.
final class ConsoleAssetsTests: XCTestCase {
    func testEmbeddedFilesMatchConsoleDirectory() throws {
        let root = TestPaths.repoRoot.appendingPathComponent("Console")
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]))
        var onDisk: [String] = []
        for case let url as URL in enumerator where (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
            let path = "/" + url.path.dropFirst(root.path.count + 1)
            onDisk.append(path)
            XCTAssertTrue(
                ConsoleFiles.bytes(path) == [UInt8](try Data(contentsOf: url)),
                "\(path) differs from the embedded copy: run `make console` (scripts/embed-console.py) and commit the result")
        }
        XCTAssertEqual(
            ConsoleFiles.paths, onDisk.sorted(),
            "Console/ and the embedded files differ: run `make console` and commit the result")
        XCTAssertTrue(onDisk.contains("/index.html"))
    }

    func testIndexIsServedAtTheRootWithItsHeaders() throws {
        let request = HTTPRequest(method: "GET", path: "/", peer: .tcp(address: "127.0.0.1"))
        let response = try XCTUnwrap(ConsoleFiles.response(for: request))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["Content-Type"], "text/html; charset=utf-8")
        XCTAssertEqual(response.body, ConsoleFiles.bytes("/index.html"))
        XCTAssertTrue(response.headers["Content-Security-Policy"]?.contains("default-src 'none'; script-src 'self'") ?? false)
        let etag = try XCTUnwrap(response.headers["ETag"])
        var again = request
        again.headers["If-None-Match"] = etag
        XCTAssertEqual(ConsoleFiles.response(for: again)?.status, 304)
        XCTAssertNil(ConsoleFiles.response(for: HTTPRequest(method: "POST", path: "/", peer: .tcp(address: "127.0.0.1"))))
        XCTAssertNil(
            ConsoleFiles.response(for: HTTPRequest(method: "GET", path: "/../etc/passwd", peer: .tcp(address: "127.0.0.1"))))
    }
}
