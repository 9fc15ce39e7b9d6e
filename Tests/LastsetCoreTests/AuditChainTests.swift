import Foundation
import LastsetFormats
import XCTest

@testable import LastsetCore

/// The audit log's hash chain (issue 24, "a tamper-evident audit"): `AuditChain.Verifier` pinpoints each kind of
/// tampering, and says nothing of an untouched log, across retention's links and acknowledgments.
final class AuditChainTests: XCTestCase {
    /// Records 1…n: replays whose intent (folded) and outcome share a job, every third a capture without a job.
    static func records(_ n: Int) -> [AuditRecord] {
        (1...n).map { i in
            let job: String? = i % 3 == 0 ? nil : "job-\((i + 1) / 2)"
            let started = job != nil && i % 2 == 1 && i % 3 != 0
            return AuditRecord(
                time: Date(timeIntervalSince1970: 1_800_000_000 + Double(i)), kind: job == nil ? .capture : .replay,
                who: "uid:\(1000 + i % 4)", pageId: "page-\(i % 5)", device: "press-\(i % 7)", endpoint: "tcp://127.0.0.1:1502",
                unit: 1, identity: [], templateVersion: i, pageHash: "sha256:00",
                result: job == nil ? .archived : (started ? .started : .succeeded), message: "record \(i)",
                registers: [
                    AuditRegister(registerId: "speed", before: .unsigned(1), after: .unsigned(UInt64(i)), status: .replay(.verified))
                ], job: job)
        }
    }

    /// The rows a log of `records` holds, chained from genesis; intents followed by their outcome are folded.
    static func chain(_ records: [AuditRecord]) -> [AuditChainRow] {
        let encoder = APICoding.encoder()
        var prev = AuditChain.genesis
        var rows: [AuditChainRow] = []
        for (i, r) in records.enumerated() {
            let json = String(decoding: try! encoder.encode(r), as: UTF8.self)
            let hash = AuditChain.link(previous: prev, record: json.utf8)
            let completed = r.result == .started && records[(i + 1)...].contains { $0.job == r.job && $0.result != .started }
            rows.append(
                AuditChainRow(
                    seq: Int64(i + 1), prev: prev, hash: hash, record: json, columns: AuditIndexColumns(r), folded: completed))
            prev = hash
        }
        return rows
    }

    static func verify(_ rows: [AuditChainRow], head: AuditChainHead? = nil) -> AuditChainReport {
        var v = AuditChain.Verifier()
        for r in rows { v.add(r) }
        return v.finish(head: head)
    }

    static func head(_ rows: [AuditChainRow]) -> AuditChainHead {
        rows.last.map { AuditChainHead(seq: $0.seq, hash: $0.hash!) } ?? .empty
    }

    func testAnUntouchedLogIsIntactWithAndWithoutItsHead() {
        let rows = Self.chain(Self.records(40))
        XCTAssertEqual(Self.verify(rows).findings, [])
        let report = Self.verify(rows, head: Self.head(rows))
        XCTAssertEqual(report.findings, [])
        XCTAssertTrue(report.intact)
        XCTAssertEqual(report.records, 40)
        XCTAssertEqual(report.head, Self.head(rows))
        XCTAssertEqual(Self.verify([], head: .empty).findings, [], "an empty log with the empty head")
    }

    func testTheLinkIsSHA256OverTheLabelThePreviousHashAndTheRecord() {
        // Pinned: a change of the rule would make every kept chain look broken.
        XCTAssertEqual(
            AuditChain.link(previous: AuditChain.genesis, record: Array("{}".utf8)),
            SHA256.hex(Array("lastset-audit-chain-v1\n\(AuditChain.genesis)\n{}".utf8)))
    }

    /// Each tampering, as an administrator with `sqlite3` could do it, and what the verifier says.
    func testEachTamperingIsPinpointed() {
        let base = Self.chain(Self.records(12))
        let head = Self.head(base)
        func edited(_ i: Int, _ change: (inout AuditChainRow) -> Void) -> [AuditChainRow] {
            var rows = base
            change(&rows[i])
            return rows
        }
        func rehashed(_ rows: [AuditChainRow], _ i: Int) -> [AuditChainRow] {
            var rows = rows
            rows[i].hash = AuditChain.link(previous: rows[i].prev!, record: rows[i].record!.utf8)
            return rows
        }
        let cases: [(String, [AuditChainRow], [AuditChainFinding])] = [
            ("a value changed", edited(4) { $0.record = $0.record!.replacingOccurrences(of: "record 5", with: "record 6") },
             [.edited(seq: 5)]),
            ("a value changed and its hash recomputed",
             rehashed(edited(4) { $0.record = $0.record!.replacingOccurrences(of: "record 5", with: "record 6") }, 4),
             [.linkBroken(seq: 6)]),
            ("a record removed", base.enumerated().filter { $0.offset != 6 }.map(\.element), [.linkBroken(seq: 8)]),
            ("the last record removed", Array(base.dropLast()), [.headMismatch(expectedSeq: 12, foundSeq: 11)]),
            ("two records swapped, seq kept",
             {
                 var rows = base
                 (rows[3].record, rows[4].record) = (rows[4].record, rows[3].record)
                 (rows[3].columns, rows[4].columns) = (rows[4].columns, rows[3].columns)
                 (rows[3].prev, rows[4].prev) = (rows[4].prev, rows[3].prev)
                 (rows[3].hash, rows[4].hash) = (rows[4].hash, rows[3].hash)
                 return rows
             }(), [.reordered(seq: 4, belongsAfter: 5), .reordered(seq: 5, belongsAfter: 3), .reordered(seq: 6, belongsAfter: 4)]),
            ("a column changed", edited(2) { $0.columns!.device = "press-9" }, [.columnDiffers(seq: 3, column: "device")]),
            ("an outcome hidden by folding it", edited(1) { $0.folded = true }, [.hiddenByFold(seq: 2)]),
            ("a record without a hash put in",
             {
                 var rows = base
                 rows.insert(AuditChainRow(seq: 13, prev: nil, hash: nil, record: base[0].record), at: 12)
                 return rows
             }(), [.unchained(seq: 13), .headMismatch(expectedSeq: 12, foundSeq: 13)]),
            ("not a record", edited(8) { $0.record = "{" }, [.edited(seq: 9), .unreadable(seq: 9)]),
        ]
        for (name, rows, expected) in cases {
            XCTAssertEqual(Self.verify(rows, head: head).findings, expected, name)
        }
    }

    /// A log rewritten with every hash recomputed verifies on its own; the heads published in the fleet's signed
    /// commits catch it, and a cut below a published head.
    func testPublishedHeadsCatchARewrittenLog() {
        let records = Self.records(20)
        let rows = Self.chain(records)
        let published = [rows[9], rows[14]].map { AuditChainHead(seq: $0.seq, hash: $0.hash!) }
        func verify(_ rows: [AuditChainRow]) -> [AuditChainFinding] {
            var v = AuditChain.Verifier(published: published)
            for r in rows { v.add(r) }
            return v.finish(head: Self.head(rows)).findings
        }
        XCTAssertEqual(verify(rows), [])
        var edited = records
        edited[4].message = "nothing happened"
        XCTAssertEqual(verify(Self.chain(edited)), [.differsFromPublished(seq: 10), .differsFromPublished(seq: 15)])
        XCTAssertEqual(verify(Self.chain(Array(records.prefix(12)))), [.differsFromPublished(seq: 15)])
    }

    func testFindingsOnTheWire() throws {
        let findings: [AuditChainFinding] = [
            .edited(seq: 1), .linkBroken(seq: 2), .reordered(seq: 3, belongsAfter: 9), .unchained(seq: 4), .unreadable(seq: 5),
            .columnDiffers(seq: 6, column: "who"), .hiddenByFold(seq: 7), .headMismatch(expectedSeq: 9, foundSeq: 8),
            .headMismatch(expectedSeq: 9, foundSeq: nil), .differsFromPublished(seq: 10),
        ]
        let report = AuditChainReport(
            records: 10, head: AuditChainHead(seq: 8, hash: "ab"), findings: findings, acknowledged: [.edited(seq: 0)])
        let data = try APICoding.encoder().encode(report)
        XCTAssertEqual(try APICoding.decoder().decode(AuditChainReport.self, from: data), report)
        let text = String(decoding: try APICoding.encoder().encode(findings[2]), as: UTF8.self)
        XCTAssertEqual(
            text, #"{"belongsAfter":9,"kind":"reordered","message":"record 3 was moved: it was recorded after record 9","seq":3}"#)
        XCTAssertTrue(String(decoding: data, as: UTF8.self).contains(#""intact":false"#))
    }

    func testRetentionLinksKeepTheChainCheckable() {
        var rows = Self.chain(Self.records(20))
        // Records 1…8 exported and removed: their links stay, without their text.
        for i in 0..<8 {
            rows[i].record = nil
            rows[i].columns = nil
            rows[i].folded = false
        }
        XCTAssertEqual(Self.verify(rows, head: Self.head(rows)).findings, [])
        // Records removed without their links (by hand): the first record kept no longer follows.
        XCTAssertEqual(
            Self.verify(Array(rows.dropFirst(8)), head: Self.head(rows)).findings, [.linkBroken(seq: 9)])
    }

    func testAnAcknowledgmentCoversTheBreaksBeforeIt() {
        var records = Self.records(10)
        var rows = Self.chain(records)
        rows[3].record = rows[3].record!.replacingOccurrences(of: "record 4", with: "record 40")
        let ack = AuditRecord(
            time: Date(timeIntervalSince1970: 1_800_000_100), kind: .chainAcknowledged, who: "uid:0", pageId: "", device: "",
            endpoint: "", unit: 0, identity: [], templateVersion: nil, pageHash: "", result: .archived,
            message: "acknowledged", registers: [])
        records.append(ack)
        let json = String(decoding: try! APICoding.encoder().encode(ack), as: UTF8.self)
        let hash = AuditChain.link(previous: rows.last!.hash!, record: json.utf8)
        rows.append(AuditChainRow(seq: 11, prev: rows.last!.hash, hash: hash, record: json, columns: AuditIndexColumns(ack)))
        let report = Self.verify(rows, head: Self.head(rows))
        XCTAssertEqual(report.findings, [])
        XCTAssertEqual(report.acknowledged, [.edited(seq: 4)])
        // A break after the acknowledgment is a new one.
        rows[10].columns!.who = "uid:1"
        XCTAssertEqual(Self.verify(rows, head: Self.head(rows)).findings, [.columnDiffers(seq: 11, column: "who")])
    }

    /// 1,000 random tamperings of a 60-record log (seeded): each is flagged at the record it touched (or, for a
    /// record replaced with a recomputed hash, at the one after it; for the last record, by the head); the
    /// untouched log, checked after each, never is.
    func testAThousandRandomTamperingsAreEachFlaggedAndNothingElse() {
        var rng = SeededGenerator(seed: 24_2026)
        let base = Self.chain(Self.records(60))
        let head = Self.head(base)
        var flagged = 0
        for trial in 0..<1_000 {
            var rows = base
            let i = Int.random(in: 0..<rows.count, using: &rng)
            let seq = rows[i].seq
            let kind = Int.random(in: 0..<6, using: &rng)
            var expectAt: Set<Int64> = [seq]
            switch kind {
            case 0:  // edit one character of the text
                var bytes = Array(rows[i].record!.utf8)
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[at] = bytes[at] == UInt8(ascii: "7") ? UInt8(ascii: "8") : UInt8(ascii: "7")
                rows[i].record = String(decoding: bytes, as: UTF8.self)
            case 1:  // edit and recompute the hash
                rows[i].record = rows[i].record!.replacingOccurrences(of: "\"message\":\"record", with: "\"message\":\"Record")
                rows[i].hash = AuditChain.link(previous: rows[i].prev!, record: rows[i].record!.utf8)
                expectAt = [seq + 1, seq == head.seq ? seq : -1]
            case 2:  // remove
                rows.remove(at: i)
                expectAt = [seq + 1, seq == head.seq ? seq : -1]
            case 3:  // move a record elsewhere (renumbered into place)
                let j = (i + Int.random(in: 1..<rows.count, using: &rng)) % rows.count
                let moved = rows.remove(at: i)
                rows.insert(moved, at: j)
                for k in rows.indices { rows[k].seq = Int64(k + 1) }
                expectAt = Set((min(i, j)...max(i, j) + 1).map { Int64($0 + 1) })
            case 4:  // change an indexed column
                rows[i].columns!.pageId = "elsewhere"
            default:  // hide it by folding
                if rows[i].folded { rows[i].folded = false; rows[i].record = rows[i].record! + " " } else { rows[i].folded = true }
            }
            let findings = Self.verify(rows, head: head).findings
            XCTAssertFalse(findings.isEmpty, "trial \(trial): tampering \(kind) of record \(seq) not flagged")
            if findings.contains(where: { expectAt.contains($0.seq) }) { flagged += 1 } else {
                XCTFail("trial \(trial): tampering \(kind) of record \(seq) flagged elsewhere: \(findings)")
            }
        }
        XCTAssertEqual(Self.verify(base, head: head).findings, [], "the untouched log")
        XCTAssertEqual(flagged, 1_000)
    }
}

/// A small seeded generator (SplitMix64), so a failing trial can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
