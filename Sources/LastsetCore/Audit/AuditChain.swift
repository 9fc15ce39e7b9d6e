import Foundation
import LastsetFormats

/// The audit log's hash chain (issue 24, "a tamper-evident audit"): every record carries the hash of the one
/// before it, so an edited, removed, inserted or reordered record breaks a link that `verify` names.
///
/// A record's hash is SHA-256 over a domain label, the previous record's hash (hex) and the record exactly as it is
/// kept (its JSON text): `link(previous:record:)`. The first record follows `genesis`. Records removed by
/// retention keep their hash as an anchor (`AuditChainRow` with no record), so the chain still checks across them;
/// their text is in the exported file. What the chain cannot show on its own: a record removed from the end, or a
/// whole log rewritten with new hashes — the head kept beside the log, and the head published in the fleet's signed
/// commits, show those.
public enum AuditChain {
    /// The hash the first record follows.
    public static let genesis = String(repeating: "0", count: 64)
    /// The label hashed before every link (a hash of this chain is never a hash of anything else).
    static let domain = Array("lastset-audit-chain-v1\n".utf8)

    /// The hash of `record` (its kept JSON) following `previous`.
    public static func link<R: Collection>(previous: String, record: R) -> String where R.Element == UInt8 {
        var h = SHA256()
        h.update(domain)
        h.update(previous.utf8)
        h.update(CollectionOfOne(UInt8(ascii: "\n")))
        h.update(record)
        return h.finalizeHex()
    }

    /// Checks a log read in `seq` order: feed every row to `add`, then `finish`. Memory: 16 bytes a record (to
    /// name where a moved record belongs) and the folded intents still waiting for their outcome.
    public struct Verifier {
        private let decoder = APICoding.decoder()
        private var findings: [AuditChainFinding] = []
        private var previous: (seq: Int64, hash: String)?
        /// Stored hashes seen so far (their first 16 hex digits) → seq: where a link that names another record
        /// points.
        private var seen: [String: Int64] = [:]
        /// Links that named a record not seen yet (a record moved before the one it follows).
        private var forward: [(seq: Int64, prev: String)] = []
        /// Folded intents whose outcome has not been read yet, by job.
        private var foldedIntents: [String: Int64] = [:]
        /// The latest acknowledgment's seq: findings before it are acknowledged.
        private var acknowledgedThrough: Int64?
        /// Heads this host published (in the fleet's signed commits) not yet met in the log, by seq.
        private var published: [Int64: String]
        /// Records read.
        public private(set) var records = 0

        /// A verifier; `published`: heads of this log published elsewhere (the fleet's commits), each of which the log
        /// must still hold, with the same hash.
        public init(published: [AuditChainHead] = []) {
            self.published = Dictionary(published.map { ($0.seq, $0.hash) }, uniquingKeysWith: { first, _ in first })
        }

        /// Checks one row (after every row of a lower `seq`).
        public mutating func add(_ row: AuditChainRow) {
            records += 1
            if let p = previous, row.seq <= p.seq {
                findings.append(.reordered(seq: row.seq, belongsAfter: p.seq))
            }
            if let expected = published.removeValue(forKey: row.seq), expected != row.hash {
                findings.append(.differsFromPublished(seq: row.seq))
            }
            guard let hash = row.hash, let prev = row.prev else {
                findings.append(.unchained(seq: row.seq))
                previous = (row.seq, row.hash ?? "")
                return
            }
            if let text = row.record {
                if AuditChain.link(previous: prev, record: text.utf8) != hash {
                    findings.append(.edited(seq: row.seq))
                }
                checkContent(row, text)
            }
            checkLink(seq: row.seq, prev: prev)
            seen[String(hash.prefix(16))] = row.seq
            previous = (row.seq, hash)
        }

        private mutating func checkLink(seq: Int64, prev: String) {
            let expected = previous?.hash ?? AuditChain.genesis
            guard prev != expected else { return }
            if let at = seen[String(prev.prefix(16))] {
                findings.append(.reordered(seq: seq, belongsAfter: at))
            } else {
                forward.append((seq, prev))
            }
        }

        private mutating func checkContent(_ row: AuditChainRow, _ text: String) {
            guard let record = try? decoder.decode(AuditRecord.self, from: Data(text.utf8)) else {
                findings.append(.unreadable(seq: row.seq))
                return
            }
            let columns = AuditIndexColumns(record)
            if let differing = columns.firstDifference(from: row.columns) {
                findings.append(.columnDiffers(seq: row.seq, column: differing))
            }
            if record.kind == .chainAcknowledged { acknowledgedThrough = row.seq }
            if row.folded {
                if record.result == .started, let job = record.job {
                    foldedIntents[job] = row.seq
                } else {
                    findings.append(.hiddenByFold(seq: row.seq))
                }
            }
            if let job = record.job, record.result != .started { foldedIntents[job] = nil }
        }

        /// The findings, in the order of the log; `head`: the last record as the daemon last wrote it (its seq and
        /// hash), when known — a log that ends before it lost its last records.
        public mutating func finish(head: AuditChainHead? = nil) -> AuditChainReport {
            var all = findings
            for (seq, prev) in forward {
                if let at = seen[String(prev.prefix(16))] {
                    all.append(.reordered(seq: seq, belongsAfter: at))
                } else {
                    all.append(.linkBroken(seq: seq))
                }
            }
            for seq in foldedIntents.values { all.append(.hiddenByFold(seq: seq)) }
            for seq in published.keys { all.append(.differsFromPublished(seq: seq)) }
            let last = previous.map { AuditChainHead(seq: $0.seq, hash: $0.hash) } ?? .empty
            if let head, head != last {
                all.append(.headMismatch(expectedSeq: head.seq, foundSeq: previous?.seq))
            }
            // In the log's order; at one record, in the order found.
            all = all.enumerated().sorted { ($0.element.seq, $0.offset) < ($1.element.seq, $1.offset) }.map(\.element)
            let through = acknowledgedThrough
            return AuditChainReport(
                records: records, head: previous.map { AuditChainHead(seq: $0.seq, hash: $0.hash) },
                findings: all.filter { f in through.map { f.seq >= $0 } ?? true },
                acknowledged: all.filter { f in through.map { f.seq < $0 } ?? false })
        }
    }
}

/// One row of the log as the chain sees it: `record` nil for a record removed by retention (its hash kept).
public struct AuditChainRow: Sendable, Hashable {
    public var seq: Int64
    public var prev: String?
    public var hash: String?
    /// The record's JSON as kept; nil: removed by retention.
    public var record: String?
    /// The indexed columns beside it (what the filters find it by).
    public var columns: AuditIndexColumns?
    /// Left out of reads as an intent its outcome completed.
    public var folded: Bool

    public init(
        seq: Int64, prev: String?, hash: String?, record: String?, columns: AuditIndexColumns? = nil, folded: Bool = false
    ) {
        self.seq = seq
        self.prev = prev
        self.hash = hash
        self.record = record
        self.columns = columns
        self.folded = folded
    }
}

/// The last record of the chain.
public struct AuditChainHead: Codable, Sendable, Hashable {
    public var seq: Int64
    public var hash: String

    public init(seq: Int64, hash: String) {
        self.seq = seq
        self.hash = hash
    }

    /// The head of an empty log.
    public static let empty = AuditChainHead(seq: 0, hash: AuditChain.genesis)
}

/// What `lastset audit verify` found (`GET /v1/audit/verify`).
public struct AuditChainReport: Codable, Sendable, Hashable {
    /// Rows read (records and retention anchors).
    public var records: Int
    /// The last record.
    public var head: AuditChainHead?
    /// What breaks the chain and was not acknowledged.
    public var findings: [AuditChainFinding]
    /// What an administrator acknowledged (a `chain-acknowledged` record after it).
    public var acknowledged: [AuditChainFinding]

    /// What the daemon found before, while it refuses to write (nil: it writes); set by the API.
    public var refusingWrites: String?

    public init(
        records: Int, head: AuditChainHead?, findings: [AuditChainFinding], acknowledged: [AuditChainFinding],
        refusingWrites: String? = nil
    ) {
        self.records = records
        self.head = head
        self.findings = findings
        self.acknowledged = acknowledged
        self.refusingWrites = refusingWrites
    }

    /// No unacknowledged finding.
    public var intact: Bool { findings.isEmpty }

    private enum CodingKeys: String, CodingKey { case records, head, findings, acknowledged, refusingWrites, intact }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            records: try c.decode(Int.self, forKey: .records), head: try c.decodeIfPresent(AuditChainHead.self, forKey: .head),
            findings: try c.decode([AuditChainFinding].self, forKey: .findings),
            acknowledged: try c.decode([AuditChainFinding].self, forKey: .acknowledged),
            refusingWrites: try c.decodeIfPresent(String.self, forKey: .refusingWrites))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(records, forKey: .records)
        try c.encodeIfPresent(head, forKey: .head)
        try c.encode(findings, forKey: .findings)
        try c.encode(acknowledged, forKey: .acknowledged)
        try c.encodeIfPresent(refusingWrites, forKey: .refusingWrites)
        try c.encode(intact, forKey: .intact)
    }
}

/// One break of the chain, at the record (`seq`) where it shows. On the wire: `{"kind": "edited", "seq": 5,
/// "message": "record 5 was edited: …"}`, with `belongsAfter`, `column` or `expectedSeq` where the kind has one.
public enum AuditChainFinding: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The record's text does not hash to the hash kept with it: it was edited.
    case edited(seq: Int64)
    /// Its link names neither the record before it nor any other: a record was removed just before it, or the
    /// one before it was replaced (text and hash).
    case linkBroken(seq: Int64)
    /// Its link names another record than the one before it: records were moved.
    case reordered(seq: Int64, belongsAfter: Int64)
    /// It carries no hash: it was put in outside the daemon.
    case unchained(seq: Int64)
    /// Its text is not a record.
    case unreadable(seq: Int64)
    /// An indexed column says something else than the record (filters would miss or misplace it).
    case columnDiffers(seq: Int64, column: String)
    /// It is marked folded (left out of reads) without being an intent its outcome completed.
    case hiddenByFold(seq: Int64)
    /// The log ends at another record than the one the daemon wrote last: records were removed from its end (or
    /// added outside the daemon).
    case headMismatch(expectedSeq: Int64, foundSeq: Int64?)
    /// The log does not hold the record this host published as its head (in a fleet commit) with the same hash, or
    /// not at all: the log was rewritten or cut after it was published.
    case differsFromPublished(seq: Int64)

    /// The kind's name on the wire.
    public var kind: String {
        switch self {
        case .edited: return "edited"
        case .linkBroken: return "linkBroken"
        case .reordered: return "reordered"
        case .unchained: return "unchained"
        case .unreadable: return "unreadable"
        case .columnDiffers: return "columnDiffers"
        case .hiddenByFold: return "hiddenByFold"
        case .headMismatch: return "headMismatch"
        case .differsFromPublished: return "differsFromPublished"
        }
    }

    private enum CodingKeys: String, CodingKey { case kind, seq, message, belongsAfter, column, expectedSeq, foundSeq }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(seq, forKey: .seq)
        try c.encode(description, forKey: .message)
        switch self {
        case .reordered(_, let after): try c.encode(after, forKey: .belongsAfter)
        case .columnDiffers(_, let column): try c.encode(column, forKey: .column)
        case .headMismatch(let expected, let found):
            try c.encode(expected, forKey: .expectedSeq)
            try c.encodeIfPresent(found, forKey: .foundSeq)
        default: break
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try c.decode(String.self, forKey: .kind)
        let seq = try c.decode(Int64.self, forKey: .seq)
        switch kind {
        case "edited": self = .edited(seq: seq)
        case "linkBroken": self = .linkBroken(seq: seq)
        case "reordered": self = .reordered(seq: seq, belongsAfter: try c.decode(Int64.self, forKey: .belongsAfter))
        case "unchained": self = .unchained(seq: seq)
        case "unreadable": self = .unreadable(seq: seq)
        case "columnDiffers": self = .columnDiffers(seq: seq, column: try c.decode(String.self, forKey: .column))
        case "hiddenByFold": self = .hiddenByFold(seq: seq)
        case "differsFromPublished": self = .differsFromPublished(seq: seq)
        case "headMismatch":
            self = .headMismatch(
                expectedSeq: try c.decode(Int64.self, forKey: .expectedSeq), foundSeq: try c.decodeIfPresent(Int64.self, forKey: .foundSeq))
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown finding \"\(kind)\"")
        }
    }

    /// The record where it shows.
    public var seq: Int64 {
        switch self {
        case .edited(let s), .linkBroken(let s), .reordered(let s, _), .unchained(let s), .unreadable(let s),
            .columnDiffers(let s, _), .hiddenByFold(let s), .differsFromPublished(let s):
            return s
        case .headMismatch(let expected, let found): return max(expected, found ?? 0)
        }
    }

    public var description: String {
        switch self {
        case .edited(let s): return "record \(s) was edited: its text does not match the hash kept with it"
        case .linkBroken(let s):
            return "record \(s) does not follow the record before it: a record was removed just before it, or the one before it was replaced"
        case .reordered(let s, let after): return "record \(s) was moved: it was recorded after record \(after)"
        case .unchained(let s): return "record \(s) carries no hash: it was put in outside lastsetd"
        case .unreadable(let s): return "record \(s) is not a readable audit record"
        case .columnDiffers(let s, let column): return "record \(s): its \(column) column does not say what the record says"
        case .hiddenByFold(let s):
            return "record \(s) is hidden from reads (folded) without being an intent its outcome completed"
        case .differsFromPublished(let s):
            return
                "record \(s) is not the record this host published as its audit head in the fleet: the log was rewritten or cut after it was published"
        case .headMismatch(let expected, let found):
            return
                "the log ends at \(found.map { "record \($0)" } ?? "no record"), but lastsetd last wrote record \(expected): records were removed from its end or added outside lastsetd"
        }
    }
}
