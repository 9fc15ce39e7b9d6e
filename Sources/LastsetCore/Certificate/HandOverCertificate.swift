import Foundation

/// A hand-over certificate: what one replay job did to one machine, as its records in the audit log tell it — the
/// machine and its identity, the template version and hashes, each register's value as found, written, read back
/// and held at the end, where each value came from, and who did it when. The content is decided once, by
/// `HandOverCertificate.make` (pure, from the recorded job); the HTML page and the PDF only lay it out, so both say
/// the same words (docs/CERTIFICATE.md).
public struct HandOverCertificate: Codable, Sendable, Hashable {
    /// The job's full id (the audit records' `job`).
    public var job: String
    /// Whether everything the job was to write is on the machine, as recorded.
    public var verdict: CertificateVerdict
    /// One sentence saying the verdict, and for an incomplete job which registers did not take.
    public var summary: String
    /// The labelled facts of the job, in print order: machine, identity, template, times, people, outcome, steps.
    public var facts: [CertificateFact]
    /// The register table's column titles, in the order `CertificateRow.cells` gives a row's texts.
    public var columns: [String]
    /// One row per register of the job, in write (page) order.
    public var rows: [CertificateRow]
    /// What the job's records do not tell (said here rather than guessed).
    public var notRecorded: [String]
    /// How to check the detached signature offline (empty when the daemon has no signing key).
    public var verification: [String]
    /// The key that signs the certificate's files (nil: not signed).
    public var signer: CertificateSigner?
    /// When the job ended as recorded (its outcome record's time; the intent's when no outcome is recorded): the
    /// PDF's creation date, so the same job always gives the same bytes and the same signature.
    public var recordedAt: Date

    /// Sets every field.
    public init(
        job: String, verdict: CertificateVerdict, summary: String, facts: [CertificateFact], columns: [String],
        rows: [CertificateRow], notRecorded: [String], verification: [String], signer: CertificateSigner?,
        recordedAt: Date
    ) {
        self.signer = signer
        self.job = job
        self.verdict = verdict
        self.summary = summary
        self.facts = facts
        self.columns = columns
        self.rows = rows
        self.notRecorded = notRecorded
        self.verification = verification
        self.recordedAt = recordedAt
    }

    /// The document's title line.
    public var title: String { "Hand-over certificate" }
}

/// Whether a job left on the machine everything it was to write, as recorded.
public enum CertificateVerdict: String, Codable, Sendable, Hashable, CaseIterable {
    /// The replay succeeded: every register written and read back equal, the steps done.
    case complete
    /// The replay failed or was refused: the rows say what did not take.
    case incomplete
    /// The daemon stopped while the replay was writing: the machine may be partially written.
    case interrupted
    /// Only the job's intent is recorded: it is still running, or its outcome was never written.
    case outcomeNotRecorded = "outcome-not-recorded"
}

/// One labelled fact of a certificate (`Machine` — `press-b`).
public struct CertificateFact: Codable, Sendable, Hashable {
    public var label: String
    public var value: String

    /// Sets both.
    public init(_ label: String, _ value: String) {
        self.label = label
        self.value = value
    }
}

/// One register of a certificate, every cell already the text to print.
public struct CertificateRow: Codable, Sendable, Hashable {
    public var registerId: String
    /// The machine's value before the job wrote (the replay's snapshot).
    public var asFound: String
    /// The value sent.
    public var written: String
    /// The value read back when the write was verified.
    public var readBack: String
    /// What the machine is known to hold at the end (after a final pass or a rollback).
    public var held: String
    /// Where the written value came from: `template`, or the override layer the job recorded.
    public var valueFrom: String
    /// The band the value may differ by (`none` when the job recorded none).
    public var tolerance: String
    /// What happened to it: `took`, or why it did not.
    public var outcome: String
    /// True when the written value is on the machine at hand-over (verified, not rolled back).
    public var took: Bool

    /// Sets every field.
    public init(
        registerId: String, asFound: String, written: String, readBack: String, held: String, valueFrom: String,
        tolerance: String, outcome: String, took: Bool
    ) {
        self.registerId = registerId
        self.asFound = asFound
        self.written = written
        self.readBack = readBack
        self.held = held
        self.valueFrom = valueFrom
        self.tolerance = tolerance
        self.outcome = outcome
        self.took = took
    }

    /// The cells in `HandOverCertificate.columns` order.
    public var cells: [String] { [registerId, asFound, written, readBack, held, valueFrom, tolerance, outcome] }
}
