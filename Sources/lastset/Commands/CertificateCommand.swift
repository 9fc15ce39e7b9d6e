import Foundation
import LastsetCore

/// `lastset certificate JOB [--output DIR] [--force]`: a replay job's hand-over certificate — the printable page
/// and its detached SSH signature, written to DIR — and how to check the signature offline.
struct CertificateCommand: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "certificate",
        abstract: "Write a replay job's hand-over certificate (HTML) and its SSH signature to a directory.",
        discussion: """
            JOB is a job id, or the prefix `lastset audit` shows in its JOB column. The certificate says what the job's
            records in the audit log say — the machine and its identity, the template version and hashes, each
            register as found, written, read back and held at the end, who and when — never a value read again. It is
            written to DIR (default: the working directory) as lastset-certificate-<JOB>.html with its detached
            signature .html.sig (ssh-keygen -Y sign, namespace lastset-certificate, the daemon's certificate key). No
            file is written through a symbolic link, nor over an existing file unless --force. Exit status 0 when the
            certificate says the job is complete, 1 when it says it is not (or nothing could be written).
            See docs/CERTIFICATE.md.
            """,
        arguments: [.init(name: "JOB", help: "The job id, or a prefix of it")],
        options: [
            .value("--output", "DIR", "The directory to write the files to (default: the working directory)"),
            .flag("--force", "Replace files of the same names (regular files; never a link)"),
        ])

    /// JOB.
    let job: String
    /// `--output`.
    let output: String
    /// `--force`.
    let force: Bool

    /// Takes JOB, --output and --force.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        job = arguments.argument("JOB")
        output = arguments.value("--output") ?? "."
        force = arguments.flag("--force")
    }

    /// JOB is a job id's characters; DIR is not empty.
    func validate() throws(UsageError) {
        if job.isEmpty || !job.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) {
            throw UsageError("JOB \"\(job)\" is not a job id (letters, digits and -)", command: Self.spec)
        }
        if output.isEmpty { throw UsageError("--output needs a directory", command: Self.spec) }
        if output.utf8.contains(0) { throw UsageError("--output must not contain a NUL byte", command: Self.spec) }
    }

    /// What `--json` prints.
    struct Summary: Codable, Sendable {
        /// The files written, in order.
        var files: [String]
        /// The certificate as the daemon made it.
        var certificate: HandOverCertificate
    }

    /// Fetches the certificate, checks every destination, then writes each file.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let certificate = try context.api.get(HandOverCertificate.self, "/v1/certificates/\(DaemonAPI.escape(job))")
        let files = CertificateFormat.allCases.map { format in
            (format, OutputFile(output + "/" + format.fileName(job: certificate.job), force: force, what: "certificate"))
        }
        // Every destination first: nothing is written when one of them is refused.
        for (_, file) in files { try file.check() }
        for (format, file) in files {
            let path = "/v1/certificates/\(DaemonAPI.escape(certificate.job))/\(format.rawValue)"
            try file.write(context.api.send("GET", path).body, readable: true)
        }
        if context.options.json {
            try context.printJSON(Summary(files: files.map(\.1.path), certificate: certificate))
        } else {
            context.print(Self.text(certificate, files: files.map(\.1.path)))
        }
        return certificate.verdict == .complete ? .success : .failure
    }

    /// The human form: the verdict, the files, and how to check the signature.
    static func text(_ c: HandOverCertificate, files: [String]) -> [String] {
        var lines = [c.summary] + files.map { "wrote \($0)" }
        guard let signer = c.signer, let page = files.first else {
            return lines + ["not signed: the daemon has no certificate key"]
        }
        lines += [
            "signed by \(signer.principal) (\(signer.fingerprint)); to check it offline, put this line in a file allowed_signers:",
            "  \(signer.allowedSignersLine)",
            "and run:",
            "  \(signer.verifyCommand(page))",
        ]
        return lines
    }
}
