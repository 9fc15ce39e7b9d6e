import Foundation
import Glibc
import LastsetCore
import TestSupport
import XCTest

/// The audit chain against the real daemon (issue 24, "a tamper-evident audit"): a record edited with `sqlite3`
/// while lastsetd was stopped is found at the next start; `lastset audit verify` names it; a capture archives
/// nothing and a replay sends no write frame (the device's own log says so) until `lastset audit acknowledge
/// --reason` — root is the administrator — after which both work again.
final class AuditChainEndToEndTests: XCTestCase {

    func testAnEditedRecordStopsEveryWriteUntilAcknowledged() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let b = try pymodbusPeer(DaemonEndToEndTests.blank)
        let config = """
            { version: 1,
              devices: [
                { id: "press-a", endpoint: "tcp://127.0.0.1:\(a.port!)", unit: 1, pages: ["heating"] },
                { id: "press-b", endpoint: "tcp://127.0.0.1:\(b.port!)", unit: 1, pages: ["heating"] },
              ],
            \(DaemonEndToEndTests.pages)
            }
            """
        let daemon = try DaemonHarness(config: config)
        defer { _ = daemon.stop() }
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)
        XCTAssertTrue(daemon.stderrContains("audit chain intact"), daemon.stderr)
        let intact = try daemon.cli(["audit", "verify"])
        XCTAssertEqual(intact.status, 0, intact.stderr)
        XCTAssertTrue(intact.stdout.hasPrefix("audit chain  intact"), intact.stdout)

        // Stopped, the capture's record is edited as someone with the file could.
        XCTAssertEqual(daemon.stop(), 0)
        let db = daemon.dataDir.appendingPathComponent("lastset.db")
        let seq = try SQLiteShell.query(db, "SELECT seq FROM audit_record WHERE kind = 'capture' AND result = 'archived'")
        XCTAssertEqual(seq.count, 1)
        try SQLiteShell.write(db, "UPDATE audit_record SET record = replace(record, '\"uid:', '\"uid:9') WHERE seq = \(seq[0])")
        try daemon.restart()
        XCTAssertTrue(daemon.stderrContains("audit chain broken: record \(seq[0]) was edited"), daemon.stderr)

        let verify = try daemon.cli(["audit", "verify"])
        XCTAssertEqual(verify.status, 1)
        XCTAssertTrue(verify.stdout.contains("record \(seq[0]) was edited"), verify.stdout)
        XCTAssertTrue(verify.stdout.contains("writes       refused until acknowledged"), verify.stdout)
        let status = try daemon.cli(["status"])
        XCTAssertTrue(status.stdout.contains("audit chain   BROKEN, nothing is written"), status.stdout)

        // A capture archives nothing; a replay sends no write frame.
        let capture = try daemon.cli(["capture", "heating", "--from", "press-a"])
        XCTAssertNotEqual(capture.status, 0)
        XCTAssertTrue((capture.stdout + capture.stderr).contains("hash chain is broken"), capture.stdout + capture.stderr)
        XCTAssertEqual(try SQLiteShell.query(db, "SELECT count(*) FROM template_version"), ["1"])
        let before = try b.writes().count
        let replay = try daemon.cli(["apply", "heating", "--to", "press-b"])
        XCTAssertNotEqual(replay.status, 0, replay.stdout)
        XCTAssertTrue((replay.stdout + replay.stderr).contains("hash chain is broken"), replay.stdout + replay.stderr)
        XCTAssertEqual(try b.writes().count, before, "no write frame reached press-b")
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 120, count: 1), [0xFFFF])

        // No reason: a usage error. With one: recorded, and writing goes on.
        XCTAssertEqual(try daemon.cli(["audit", "acknowledge"]).status, 64, "a usage error")
        let ack = try daemon.cli(["audit", "acknowledge", "--reason", "test edit during commissioning"])
        XCTAssertEqual(ack.status, 0, ack.stderr)
        XCTAssertTrue(ack.stdout.contains("record \(seq[0]) was edited"), ack.stdout)
        XCTAssertTrue(ack.stdout.contains("Reason: test edit during commissioning"), ack.stdout)
        let replayed = try daemon.cli(["apply", "heating", "--to", "press-b"])
        XCTAssertEqual(replayed.status, 0, replayed.stdout + replayed.stderr)
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 120, count: 1), [12])
        let after = try daemon.cli(["audit", "verify"])
        XCTAssertEqual(after.status, 0, after.stdout)
        XCTAssertTrue(after.stdout.contains("acknowledged:\n  record \(seq[0]) was edited"), after.stdout)
        let records = try daemon.auditRecords()
        XCTAssertEqual(records.filter { $0.kind == .chainAcknowledged }.map(\.who), ["uid:0(root)"])
    }
}
