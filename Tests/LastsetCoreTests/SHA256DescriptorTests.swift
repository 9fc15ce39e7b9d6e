import Foundation
import Glibc
import LastsetFormats
import TestSupport
import XCTest

/// The SHA-256 of what a descriptor holds (the daemon's backup, the CLI's check of the copy): the digest of the bytes
/// whatever the descriptor's offset, over more than one 1 MiB part; an empty file; a descriptor that cannot be read.
final class SHA256DescriptorTests: XCTestCase {
    func testTheDigestOfEverythingADescriptorHolds() throws {
        let directory = try TestPaths.temporaryDirectory(prefix: "sha256-fd")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("three parts and a little", (0..<(3 << 20) + 5).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }),
        ]
        for (name, bytes) in cases {
            let url = directory.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            let fd = open(url.path, O_RDONLY | O_CLOEXEC)
            XCTAssertGreaterThanOrEqual(fd, 0)
            defer { close(fd) }
            // Read from offset 0 whatever the descriptor's offset, which is left where it was.
            lseek(fd, off_t(bytes.count / 2), SEEK_SET)
            let digest = try SHA256.of(descriptor: fd)
            XCTAssertEqual(digest.bytes, Int64(bytes.count), name)
            XCTAssertEqual(digest.hex, SHA256.hex(bytes), name)
            XCTAssertEqual(lseek(fd, 0, SEEK_CUR), off_t(bytes.count / 2), name)
        }
        XCTAssertThrowsError(try SHA256.of(descriptor: -1)) { error in
            XCTAssertEqual((error as? SHA256.ReadError)?.errno, EBADF)
        }
    }
}
