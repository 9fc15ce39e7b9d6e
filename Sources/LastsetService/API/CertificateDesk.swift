import Foundation
import LastsetCore
import LastsetEngine
import LastsetFleet
import LastsetPDF
import LastsetSystem

/// Makes hand-over certificates (docs/CERTIFICATE.md): a job's records read from the audit log, the archived
/// template file's checksum, the content decided by `HandOverCertificate.make`, laid out by the renderers and
/// signed with the host's certificate key through `ssh-keygen -Y sign`. An actor on its own queue: ssh-keygen and
/// the renderers block, and never run on the cooperative pool.
actor CertificateDesk {
    private let executor = DispatchQueueExecutor(label: "lastset.certificates")
    private let engine: Engine
    private let key: SSHSigningKey
    /// The name the signing key goes by in an `allowed_signers` line.
    let principal: String
    /// The host the certificate says recorded the job.
    let host: String
    /// The signer once its key was read (made the first time).
    private var signer: CertificateSigner?

    /// The actor's executor: its private serial queue.
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Certificates of `engine`'s jobs, signed with the key at `keyPath` as `lastset@<host>`.
    init(engine: Engine, keyPath: String, host: String) {
        self.engine = engine
        self.key = SSHSigningKey(path: keyPath)
        self.host = host
        self.principal = "lastset@\(host)"
    }

    /// The key file a daemon uses: `certificate-key` beside its database, in the data directory.
    static func defaultKeyPath(engine: Engine) -> String {
        (engine.database.path as NSString).deletingLastPathComponent + "/certificate-key"
    }

    /// This machine's name (`gethostname`, never a DNS lookup): the host without a fleet.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(cString: buffer)
        return name.isEmpty ? "localhost" : name
    }

    /// The certificate of `job` (an id or a prefix of one). A signing key that cannot be read or made leaves it
    /// unsigned (it says so); `.failure` when no certificate can be made for it.
    func certificate(job: String) async throws(StorageError) -> Result<HandOverCertificate, CertificateRefusal> {
        let records = try await engine.audit.records(ofJob: job)
        let main = records.last { $0.result != .started } ?? records.first
        var check = TemplateFileCheck.unavailable("the record names no page")
        if let main {
            check = await engine.archive.fileCheck(
                pageId: main.pageId, versionId: main.templateVersionId ?? main.templateVersion.map(String.init))
        }
        let signer = try? currentSigner()
        return HandOverCertificate.make(
            CertificateSource(asked: job, records: records, templateFile: check, host: host, signer: signer))
    }

    /// The bytes of one of the certificate's files.
    func file(_ format: CertificateFormat, of certificate: HandOverCertificate) throws(SSHSigningError) -> [UInt8] {
        guard let signed = format.signed else { return render(format, certificate) }
        return try key.sign(render(signed, certificate), namespace: CertificateSigner.namespace)
    }

    /// A document's bytes (the same certificate always gives the same bytes, so a signature fetched apart from its
    /// document still matches it).
    private func render(_ format: CertificateFormat, _ certificate: HandOverCertificate) -> [UInt8] {
        switch format {
        case .html, .htmlSignature: return CertificateHTML.render(certificate)
        case .pdf, .pdfSignature: return CertificatePDF.render(certificate)
        }
    }

    /// The signer, its key made and read the first time.
    private func currentSigner() throws(SSHSigningError) -> CertificateSigner {
        if let signer { return signer }
        let made = try key.signer(principal: principal)
        signer = made
        return made
    }
}
