import Foundation
import Glibc
import XCTest

@testable import LastsetSystem

/// The one write-everything loop: a megabyte through a pipe (16 times what it holds) to a reader taking 4 KiB at a
/// time, byte for byte; an empty write; the errno of a descriptor that cannot be written.
final class FileDescriptorWriteTests: XCTestCase {
    /// What the reading thread received (read after it signalled its end).
    private final class Received: @unchecked Sendable {
        var bytes: [UInt8] = []
    }

    func testEveryByteArrivesThroughAPipe() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        let (reader, writer) = (ends[0], ends[1])
        defer { close(reader) }
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        // Read on another thread, 4 KiB at a time, while the writer waits for room.
        let received = Received()
        let done = DispatchSemaphore(value: 0)
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress!, $0.count) }
                if n <= 0 { break }
                received.bytes += buffer[0..<n]
            }
            done.signal()
        }.start()
        XCTAssertNil(FileDescriptorWrite.all(writer, bytes))
        close(writer)
        done.wait()
        XCTAssertEqual(received.bytes, bytes)
    }

    func testNothingToWriteAndADescriptorThatCannotBeWritten() {
        XCTAssertNil(FileDescriptorWrite.all(-1, []), "nothing to write: no call made")
        XCTAssertEqual(FileDescriptorWrite.all(-1, [1, 2, 3]), EBADF)
        let readOnly = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(readOnly) }
        XCTAssertEqual(FileDescriptorWrite.all(readOnly, [1]), EBADF)
    }
}
