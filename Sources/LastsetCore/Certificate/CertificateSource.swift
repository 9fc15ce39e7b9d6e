import Foundation

/// What a certificate is made from: a job's records as the audit log holds them, and the few recorded facts that
/// live beside them (the archived template file's checksum, this host, the signing key). Nothing in it is read
/// from the machine.
public struct CertificateSource: Sendable, Hashable {
    /// The job as asked for: its id, or a prefix of it (as `lastset audit` shows it).
    public var asked: String
    /// Every audit record whose job starts with `asked`, oldest first, the intent (`started`) included.
    public var records: [AuditRecord]
    /// The archived file of the version the job wrote, looked up by the version the record names.
    public var templateFile: TemplateFileCheck
    /// The host that recorded the job (its fleet name, else its host name).
    public var host: String
    /// The key that signs the certificate's files (nil: none could be made; the certificate says so).
    public var signer: CertificateSigner?

    /// Sets every field.
    public init(
        asked: String, records: [AuditRecord], templateFile: TemplateFileCheck, host: String, signer: CertificateSigner?
    ) {
        self.asked = asked
        self.records = records
        self.templateFile = templateFile
        self.host = host
        self.signer = signer
    }
}

/// The archived template file of the version a job wrote.
public enum TemplateFileCheck: Sendable, Hashable {
    /// Still archived and intact: its checksum (`sha256:…`).
    case checksum(String)
    /// Not available now, and why (deleted since, corrupt, the record names no version).
    case unavailable(String)
}

/// The key that signs certificates, as a verifier needs to name it (docs/CERTIFICATE.md).
public struct CertificateSigner: Codable, Sendable, Hashable {
    /// The name the `allowed_signers` line gives the key (`lastset@<host>`).
    public var principal: String
    /// The `ssh-keygen -Y` namespace every certificate signature is made in.
    public var namespace: String
    /// The public key, as in a `.pub` file without its comment (`ssh-ed25519 AAAA…`).
    public var publicKey: String
    /// Its fingerprint (`SHA256:…`, as `ssh-keygen -l` prints it).
    public var fingerprint: String

    /// The namespace of certificate signatures: a signature made for anything else never verifies as one.
    public static let namespace = "lastset-certificate"

    /// Sets every field; the namespace is always `CertificateSigner.namespace`.
    public init(principal: String, publicKey: String, fingerprint: String) {
        self.principal = principal
        self.namespace = Self.namespace
        self.publicKey = publicKey
        self.fingerprint = fingerprint
    }

    /// The line of an `allowed_signers` file that trusts this key for certificates only.
    public var allowedSignersLine: String { "\(principal) namespaces=\"\(namespace)\" \(publicKey)" }

    /// The command that checks `file` against its detached signature `file.sig` with an `allowed_signers` file.
    public func verifyCommand(_ file: String) -> String {
        "ssh-keygen -Y verify -f allowed_signers -I \(principal) -n \(namespace) -s \(file).sig < \(file)"
    }
}

/// Why no certificate is made for a job.
public enum CertificateRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// No audit record names the job.
    case noRecords(job: String)
    /// The prefix names records of several jobs.
    case ambiguous(job: String, matches: [String])
    /// The job is not a replay (a capture, an import, …): nothing was handed over to a machine.
    case notAReplay(job: String, kind: AuditKind)

    public var description: String {
        switch self {
        case .noRecords(let job): return "no audit record of job \"\(job)\""
        case .ambiguous(let job, let matches):
            return "\"\(job)\" names \(matches.count) jobs (\(matches.prefix(5).joined(separator: ", "))): give more of the id"
        case .notAReplay(let job, let kind):
            return "job \(job) is a \(kind.rawValue), not a replay: a certificate tells what a replay wrote to a machine"
        }
    }
}
