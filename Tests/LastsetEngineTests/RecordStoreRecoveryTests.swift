import Foundation
import LastsetEngine
import TestSupport
import XCTest

/// What the daemon says when `lastset.db` is damaged: how to recover, from a backup made with `lastset backup`.
final class RecordStoreRecoveryTests: XCTestCase {
    func testADamagedDatabaseIsRefusedSayingHowToRestoreABackup() throws {
        let dir = try TestPaths.temporaryDirectory(prefix: "recovery")
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(repeating: 0x5A, count: 8_192).write(to: dir.appendingPathComponent("lastset.db"))
        do {
            _ = try RecordStore.open(dataDirectory: dir)
            XCTFail("a damaged database was opened")
        } catch {
            let text = error.description
            XCTAssertTrue(text.contains("To recover, stop lastsetd and move lastset.db"), text)
            XCTAssertTrue(text.contains("copy a backup in as \(dir.path)/lastset.db"), text)
            XCTAssertTrue(text.contains("`lastset backup FILE` while lastsetd ran"), text)
        }
    }
}
