import Foundation
import LastsetFleet
import TestSupport
import XCTest

/// The file naming the fleet host a data directory was registered as (`fleet/.git/lastset-host`): absent means
/// "never joined a fleet"; present but unreadable or not a host name is an error, never "never joined" (which
/// would let the daemon start under another host name and change what a plain version number means).
final class FleetHostFileTests: XCTestCase {
    private var data: URL!
    private var file: URL { data.appendingPathComponent("fleet/.git/lastset-host") }

    override func setUp() async throws {
        data = try TestPaths.temporaryDirectory(prefix: "hostfile")
        try FileManager.default.createDirectory(
            at: data.appendingPathComponent("fleet/.git"), withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: data)
    }

    func testAbsentMeansNeverRegisteredAndAValidNameIsRead() throws {
        XCTAssertNil(try Fleet.registeredHost(dataDirectory: data))
        try Data("line-a\n".utf8).write(to: file)
        XCTAssertEqual(try Fleet.registeredHost(dataDirectory: data), "line-a")
    }

    func testAFileThatSaysNoHostIsAnErrorNamingIt() throws {
        let cases: [(String, Data?, String)] = [
            ("not a host name", Data("../other host\n".utf8), "not a valid host name"),
            ("empty", Data(), "not a valid host name"),
            ("not UTF-8", Data([0x68, 0xFF, 0xFE, 0x0A]), "not UTF-8"),
            ("a directory in its place", nil, "cannot be read"),
        ]
        for (name, content, reason) in cases {
            try? FileManager.default.removeItem(at: file)
            if let content {
                try content.write(to: file)
            } else {
                try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
            }
            XCTAssertThrowsError(try Fleet.registeredHost(dataDirectory: data), name) { error in
                let text = String(describing: error)
                XCTAssertTrue(text.contains(file.path) && text.contains(reason), "\(name): \(text)")
            }
        }
    }
}
