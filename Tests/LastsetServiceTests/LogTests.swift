import Foundation
import Glibc
import LastsetService
import XCTest

final class LogTests: XCTestCase {
    private let date = Date(timeIntervalSince1970: 1_767_323_045.678)  // 2026-01-02T03:04:05.678Z

    func testJournalLinesCarryPriorityPrefixes() {
        let logger = Logger(label: "lastsetd", level: .debug, format: .journal, fileDescriptor: -1)
        XCTAssertEqual(logger.render(.error, "device press-1 unreachable", at: date), "<3>lastsetd: device press-1 unreachable\n")
        XCTAssertEqual(logger.render(.warning, "w", at: date), "<4>lastsetd: w\n")
        XCTAssertEqual(logger.render(.info, "i", at: date), "<6>lastsetd: i\n")
        XCTAssertEqual(logger.render(.debug, "d", at: date), "<7>lastsetd: d\n")
        XCTAssertEqual(logger.render(.error, "two\nlines\n", at: date), "<3>lastsetd: two\n<3>lastsetd: lines\n")
    }

    func testPlainLinesCarryTimestampAndLevel() {
        let logger = Logger(label: "api", format: .plain, fileDescriptor: -1)
        XCTAssertEqual(logger.render(.warning, "slow reply", at: date), "2026-01-02T03:04:05.678Z warning api: slow reply\n")
    }

    func testJournalIsDetectedFromJournalStream() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer {
            for fd in fds { close(fd) }
        }
        var info = stat()
        XCTAssertEqual(fstat(fds[1], &info), 0)
        XCTAssertEqual(
            LogFormat.detect(fileDescriptor: fds[1], environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]), .journal)
        XCTAssertEqual(
            LogFormat.detect(fileDescriptor: fds[1], environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino + 1)"]), .plain
        )
        XCTAssertEqual(LogFormat.detect(fileDescriptor: fds[1], environment: ["JOURNAL_STREAM": "garbage"]), .plain)
        XCTAssertEqual(LogFormat.detect(fileDescriptor: fds[1], environment: [:]), .plain)
    }

    func testWritesWholeLinesAndHonoursTheThreshold() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        let logger = Logger(label: "lastsetd", level: .info, format: .journal, fileDescriptor: fds[1])
        logger.debug("dropped")
        logger.info("kept")
        logger.labeled("poller").error("also kept")
        close(fds[1])
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if count <= 0 { break }
            output.append(contentsOf: buffer[0..<count])
        }
        XCTAssertEqual(String(decoding: output, as: UTF8.self), "<6>lastsetd: kept\n<3>poller: also kept\n")
    }

    func testLevelNames() {
        XCTAssertEqual(LogLevel(name: "WARNING"), .warning)
        XCTAssertEqual(LogLevel(name: "debug"), .debug)
        XCTAssertNil(LogLevel(name: "verbose"))
    }
}
