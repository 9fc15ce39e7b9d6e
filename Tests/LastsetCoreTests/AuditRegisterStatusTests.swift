import Foundation
import LastsetFormats
import XCTest

@testable import LastsetCore

/// `AuditRegisterStatus` names a replay's outcome by `RegisterStatus` (issue 21: the audit no longer keeps its own
/// copy of the replay cases); each status is stored, sent and read back under the name it always had.
final class AuditRegisterStatusTests: XCTestCase {
    /// Every status and its stored name, written out: the audit log's and the API's format.
    private let table: [(AuditRegisterStatus, String, UInt)] = [
        (.captured, "captured", #line),
        (.invalid, "invalid", #line),
        (.imported, "imported", #line),
        (.replay(.verified), "verified", #line),
        (.replay(.mismatch), "mismatch", #line),
        (.replay(.rejected), "rejected", #line),
        (.replay(.failed), "failed", #line),
        (.replay(.inDoubt), "inDoubt", #line),
        (.replay(.unverified), "unverified", #line),
        (.replay(.changedLater), "changedLater", #line),
        (.replay(.notAttempted), "notAttempted", #line),
        (.replay(.unchanged), "unchanged", #line),
        (.replay(.differs), "differs", #line),
    ]

    func testEveryStatusKeepsItsStoredName() throws {
        XCTAssertEqual(Set(table.map(\.0)), Set(AuditRegisterStatus.allCases), "the table lists every status")
        XCTAssertEqual(AuditRegisterStatus.allCases.count, 13)
        let decoder = APICoding.decoder()
        for (status, name, line) in table {
            XCTAssertEqual(status.rawValue, name, line: line)
            XCTAssertEqual(AuditRegisterStatus(rawValue: name), status, line: line)
            let register = AuditRegister(registerId: "r", before: nil, after: nil, status: status)
            // The Codable form and the audit log's fast writer both store the name.
            let encoded = String(decoding: try APICoding.encoder().encode(register), as: UTF8.self)
            XCTAssertTrue(encoded.contains("\"status\":\"\(name)\""), encoded, line: line)
            let record = AuditRecord(
                time: Date(timeIntervalSince1970: 1000), kind: .replay, who: "uid:0", pageId: "p", device: "d",
                endpoint: "tcp://127.0.0.1:1", unit: 1, identity: [], templateVersion: 1, pageHash: "h", result: .failed, message: nil,
                registers: [register])
            var w = JSONWriter()
            record.write(to: &w)
            let written = String(decoding: w.bytes, as: UTF8.self)
            XCTAssertTrue(written.contains("\"status\":\"\(name)\""), written, line: line)
            XCTAssertEqual(try decoder.decode(AuditRecord.self, from: Data(w.bytes)).registers.first?.status, status, line: line)
            XCTAssertEqual(
                try decoder.decode(AuditRegister.self, from: Data(#"{"registerId":"r","status":"\#(name)"}"#.utf8)).status,
                status, line: line)
        }
        for stranger in ["", "Verified", "archived", "ok", "replay"] {
            XCTAssertNil(AuditRegisterStatus(rawValue: stranger), stranger)
            XCTAssertThrowsError(
                try decoder.decode(AuditRegister.self, from: Data(#"{"registerId":"r","status":"\#(stranger)"}"#.utf8)))
        }
    }

    /// A replay's statuses are the audit's under the same names; a rollback line keeps a replay status.
    func testAReplayStatusIsTheAuditsUnderItsName() throws {
        for status in RegisterStatus.allCases {
            XCTAssertEqual(AuditRegisterStatus(status), .replay(status))
            XCTAssertEqual(AuditRegisterStatus(status).rawValue, status.rawValue)
        }
        let rollback = AuditRollback(restored: .unsigned(1), readBack: nil, status: .mismatch)
        let encoded = String(decoding: try APICoding.encoder().encode(rollback), as: UTF8.self)
        XCTAssertTrue(encoded.contains("\"status\":\"mismatch\""), encoded)
        XCTAssertEqual(try APICoding.decoder().decode(AuditRollback.self, from: Data(encoded.utf8)), rollback)
    }
}
