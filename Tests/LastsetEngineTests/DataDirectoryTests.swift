import Foundation
import LastsetCore
import LastsetEngine
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// The data directory's own defences: one daemon at a time, no link followed, durability failures told truthfully.
final class DataDirectoryTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory(prefix: "datadir")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    func testTheLockIsExclusiveNamesItsHolderAndIsReleasedWithIt() throws {
        let data = dir.appendingPathComponent("data")
        var first: DataDirectoryLock? = try DataDirectoryLock(directory: data, now: Date(timeIntervalSince1970: 1_800_000_000))
        XCTAssertNotNil(first)
        XCTAssertThrowsError(try DataDirectoryLock(directory: data)) { error in
            XCTAssertEqual(
                error as? DataDirectoryLockError,
                .held(directory: data.path, holder: "pid \(getpid()) since 2027-01-15T08:00:00.000Z"))
            XCTAssertTrue("\(error)".contains("in use by another lastsetd (pid \(getpid()) since 2027-01-15T08:00:00.000Z)"))
        }
        first = nil
        XCTAssertNoThrow(try DataDirectoryLock(directory: data))
    }

    func testALockFilePlantedAsASymlinkIsNotFollowed() throws {
        let outside = dir.appendingPathComponent("outside.txt")
        try Data("precious\n".utf8).write(to: outside)
        let data = dir.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        XCTAssertEqual(symlink(outside.path, data.appendingPathComponent(DataDirectoryLock.fileName).path), 0)
        XCTAssertThrowsError(try DataDirectoryLock(directory: data)) { error in
            XCTAssertTrue("\(error)".contains("Too many levels of symbolic links"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOf: outside, encoding: .utf8), "precious\n")
    }
}
