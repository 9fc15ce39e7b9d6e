import Foundation
import LastsetCore
import LastsetStore

#if canImport(Glibc)
    import Glibc
#endif

/// The audit log's hash chain in `lastset.db` (`AuditChain` is the rule): each row of `audit_record` carries `prev`
/// (the hash of the record before it) and `hash`; a record removed by retention leaves its link in `audit_pruned`;
/// `audit_chain` keeps the head the daemon wrote last and, once a verification found the chain broken, what it found.
///
/// **Appending** (`link`, inside the transaction of the record's commit): the new record follows the last one kept.
/// It is refused — the transaction, and with it the job's write or archive, fails — while the chain is marked broken,
/// or when the log's last record is not the head the daemon wrote last (records removed from its end, or added, by
/// hand). Only a `chain-acknowledged` record goes past a break: the administrator's acknowledgment, which clears the
/// mark. Edits further back are found by `verify` (at every start, and `lastset audit verify`), which marks the chain.
enum AuditChainStore {
    /// The chain's state as kept: the head and, when broken, what was found.
    struct State {
        var head: AuditChainHead
        var broken: String?
    }

    static func state(_ c: Connection) throws(DatabaseError) -> State? {
        try c.first("SELECT head_seq, head_hash, broken FROM audit_chain WHERE id = 1") { row in
            State(head: AuditChainHead(seq: row.int64(0), hash: row.text(1) ?? ""), broken: row.text(2))
        }
    }

    /// The last link of the log: its newest record, or a newer record's link kept by retention; nil when empty.
    static func last(_ c: Connection) throws(DatabaseError) -> AuditChainHead? {
        let kept = try c.first("SELECT seq, hash FROM audit_record ORDER BY seq DESC LIMIT 1") { row in
            AuditChainHead(seq: row.int64(0), hash: row.text(1) ?? "")
        }
        let pruned = try c.first("SELECT seq, hash FROM audit_pruned ORDER BY seq DESC LIMIT 1") { row in
            AuditChainHead(seq: row.int64(0), hash: row.text(1) ?? "")
        }
        switch (kept, pruned) {
        case (let k?, let p?): return k.seq > p.seq ? k : p
        case (let k, let p): return k ?? p
        }
    }

    /// Links the record about to be inserted as `json` (of `kind`): returns its `prev` and `hash`. Throws, so that
    /// nothing of the transaction is kept, when the chain may not be written past.
    static func link(json: [UInt8], kind: String, on c: Connection) throws -> (prev: String, hash: String) {
        let last = try Self.last(c) ?? .empty
        let state = try Self.state(c)
        if kind != AuditKind.chainAcknowledged.rawValue {
            if let broken = state?.broken { throw refusal(broken, c.path) }
            if let expected = state?.head, expected != last {
                let found = AuditChainFinding.headMismatch(expectedSeq: expected.seq, foundSeq: last.seq)
                throw refusal(found.description, c.path)
            }
        }
        let prev = last.hash
        return (prev, AuditChain.link(previous: prev, record: json))
    }

    /// Records the head after the insert of `seq` (same transaction); an acknowledgment clears the broken mark.
    static func advance(to head: AuditChainHead, acknowledged: Bool, on c: Connection) throws(DatabaseError) {
        try c.run(
            """
            INSERT INTO audit_chain (id, head_seq, head_hash, broken) VALUES (1, ?, ?, NULL)
            ON CONFLICT (id) DO UPDATE SET head_seq = excluded.head_seq, head_hash = excluded.head_hash,
                broken = CASE WHEN ? THEN NULL ELSE broken END
            """, .integer(head.seq), .text(head.hash), .integer(acknowledged ? 1 : 0))
    }

    static func refusal(_ finding: String, _ path: String) -> StorageError {
        StorageError(
            operation: "append to the audit log in", path: path, errno: EBADMSG,
            detail:
                "the audit log's hash chain is broken (\(finding)); nothing is written until an administrator checks it (`lastset audit verify`) and acknowledges it (`lastset audit acknowledge --reason TEXT`)"
        )
    }

    /// Chains the records of a database made before the chain (every row without a hash, when no head is kept yet),
    /// in `seq` order; a no-op once a head is kept (a row without a hash after that is a finding, not a record to
    /// chain).
    static func backfill(_ c: Connection) throws {
        guard try state(c) == nil else { return }
        var prev = AuditChain.genesis
        var head: AuditChainHead?
        var after = Int64.min
        while true {
            var batch: [(Int64, String)] = []
            try c.rows("SELECT seq, record FROM audit_record WHERE seq > ? ORDER BY seq LIMIT 1000", .integer(after)) {
                row in
                batch.append((row.int64(0), row.text(1) ?? ""))
                return true
            }
            for (seq, json) in batch {
                let hash = AuditChain.link(previous: prev, record: json.utf8)
                try c.run("UPDATE audit_record SET prev = ?, hash = ? WHERE seq = ?", .text(prev), .text(hash), .integer(seq))
                prev = hash
                head = AuditChainHead(seq: seq, hash: hash)
                after = seq
            }
            if batch.count < 1000 { break }
        }
        try advance(to: head ?? .empty, acknowledged: true, on: c)
    }

    /// Keeps the links of records retention removes (same transaction as their removal).
    static func prune(seq: Int64, file: String, on c: Connection) throws(DatabaseError) {
        try c.run(
            "INSERT INTO audit_pruned (seq, prev, hash, file) SELECT seq, prev, hash, ? FROM audit_record WHERE seq = ? AND hash IS NOT NULL",
            .text(file), .integer(seq))
    }

    /// Reads the whole chain in `seq` order (records and retention's links), in batches, and checks it against the
    /// head kept. The caller marks the chain broken when the report is not intact (`markBroken`).
    static func verify(_ database: Database, published: [AuditChainHead] = [], batch: Int = 2_000) async throws
        -> AuditChainReport
    {
        var verifier = AuditChain.Verifier(published: published)
        var after = Int64.min
        while true {
            let from = after
            let rows: [AuditChainRow] = try await database.read { c in
                var out: [AuditChainRow] = []
                try c.rows(
                    """
                    SELECT seq, prev, hash, record, time, kind, result, page_id, device, who, job, folded FROM audit_record
                        WHERE seq > ?1
                    UNION ALL SELECT seq, prev, hash, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0 FROM audit_pruned
                        WHERE seq > ?1
                    ORDER BY seq LIMIT ?2
                    """, .integer(from), .integer(Int64(batch))
                ) { row in
                    let record = row.text(3)
                    let columns = record.map { _ in
                        AuditIndexColumns(
                            time: row.int64(4), kind: row.text(5) ?? "", result: row.text(6) ?? "", pageId: row.text(7) ?? "",
                            device: row.text(8) ?? "", who: row.text(9) ?? "", job: row.text(10))
                    }
                    out.append(
                        AuditChainRow(
                            seq: row.int64(0), prev: row.text(1), hash: row.text(2), record: record, columns: columns,
                            folded: row.int64(11) != 0))
                    return true
                }
                return out
            }
            for row in rows { verifier.add(row) }
            guard let last = rows.last, rows.count == batch else { break }
            after = last.seq
        }
        let kept = try await database.read { c in try state(c)?.head }
        return verifier.finish(head: kept)
    }

    /// Marks the chain broken with `finding` (durable): every later record is refused until acknowledged.
    static func markBroken(_ finding: String, _ database: Database) async throws {
        try await database.write { c in
            try c.run("UPDATE audit_chain SET broken = ? WHERE id = 1 AND broken IS NULL", .text(finding))
        }
    }
}
