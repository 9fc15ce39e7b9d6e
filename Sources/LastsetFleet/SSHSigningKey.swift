import Foundation
import LastsetCore

#if canImport(Glibc)
    import Glibc
#endif

/// The SSH key that signs hand-over certificates, used through Debian's `ssh-keygen` (`-Y sign`), so anyone can
/// check a signature offline with `ssh-keygen -Y verify` and the key's `allowed_signers` line (docs/CERTIFICATE.md).
/// The key is the private key file at `path` — lastsetd's own, `<data>/certificate-key`, made (ed25519, no
/// passphrase, mode 0600) the first time a certificate is signed; an administrator may put another key there
/// (the host's key, a site key) before that. Every call blocks: callers run it off the cooperative pool.
public struct SSHSigningKey: Sendable {
    /// The private key file.
    public let path: String
    /// How `ssh-keygen` runs (its path, a plain environment).
    private let keygen: ChildProcess

    /// The key at `path`; `ssh-keygen` is looked up on PATH (else `/usr/bin/ssh-keygen`).
    public init(path: String) {
        self.path = path
        var env = ProcessInfo.processInfo.environment.filter { $0.key != "SSH_AUTH_SOCK" && $0.key != "SSH_ASKPASS" }
        env["LC_ALL"] = "C"
        let search = env["PATH"] ?? "/usr/bin:/bin"
        let candidates: [String] = search.split(separator: ":").map { "\($0)/ssh-keygen" }
        let executable = candidates.first { access($0, X_OK) == 0 } ?? "/usr/bin/ssh-keygen"
        keygen = ChildProcess(executable: executable, environment: env.map { "\($0.key)=\($0.value)" }.sorted())
    }

    /// The key's name and public half for `principal`, making the key first when there is none at `path`.
    public func signer(principal: String) throws(SSHSigningError) -> CertificateSigner {
        try makeIfMissing(comment: principal)
        let publicLine = try text(run(["-y", "-f", path]))
        let fields = publicLine.split(separator: " ")
        guard fields.count >= 2 else { throw .unexpected("ssh-keygen -y printed no public key: \(publicLine)") }
        let publicKey = fields.prefix(2).joined(separator: " ")
        let listing = try text(run(["-l", "-f", "-"], stdin: Data((publicKey + "\n").utf8)))
        guard let fingerprint = listing.split(separator: " ").first(where: { $0.hasPrefix("SHA256:") }) else {
            throw .unexpected("ssh-keygen -l printed no fingerprint: \(listing)")
        }
        return CertificateSigner(principal: principal, publicKey: publicKey, fingerprint: String(fingerprint))
    }

    /// The detached signature (`-----BEGIN SSH SIGNATURE-----` armour) of `bytes` in `namespace`.
    public func sign(_ bytes: [UInt8], namespace: String) throws(SSHSigningError) -> [UInt8] {
        [UInt8](try run(["-Y", "sign", "-f", path, "-n", namespace], stdin: Data(bytes)))
    }

    /// Makes an ed25519 key at `path` when nothing is there (a link there is refused: the key is never written
    /// through one).
    private func makeIfMissing(comment: String) throws(SSHSigningError) {
        var st = stat()
        if lstat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFREG else {
                throw .unexpected("\(path) is not a regular file (a link, a directory?): no key is read or made there")
            }
            return
        }
        guard errno == ENOENT else { throw .unexpected("cannot check \(path): \(String(cString: strerror(errno)))") }
        _ = try run(["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path])
    }

    /// Runs `ssh-keygen arguments…` with a 10-second deadline; its stdout, or its stderr as the error.
    private func run(_ arguments: [String], stdin: Data? = nil) throws(SSHSigningError) -> Data {
        let out: ChildProcess.Output
        do {
            out = try keygen.run(["ssh-keygen"] + arguments, timeout: .seconds(10), stdin: stdin)
        } catch {
            throw .process(error)
        }
        guard out.status == 0 else {
            let message = String(decoding: out.stderr, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw .failed(arguments: arguments, status: out.status, message: message)
        }
        return out.stdout
    }

    private func text(_ data: Data) -> String {
        String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Why a certificate could not be signed.
public enum SSHSigningError: Error, Sendable, Hashable, CustomStringConvertible {
    /// ssh-keygen could not be run to its end.
    case process(ChildProcessError)
    /// ssh-keygen refused (its stderr).
    case failed(arguments: [String], status: Int32, message: String)
    /// Something else was not as expected.
    case unexpected(String)

    public var description: String {
        switch self {
        case .process(let e): return e.description
        case .failed(let a, let s, let m): return "ssh-keygen \(a.prefix(2).joined(separator: " ")) failed (exit \(s)): \(m)"
        case .unexpected(let why): return why
        }
    }
}
