import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs Debian's `git` with a deadline: each call is a child process in its own process group, killed
/// (with any `ssh` it started) when the deadline passes. No user or system git config is read, git
/// never prompts, and ssh runs in batch mode with a connect timeout, so a call can neither hang on a
/// password prompt nor on an unreachable hub.
struct GitCommand: Sendable {
    /// The repository's work tree (`-C`).
    let workTree: String
    /// The environment every call gets (`KEY=value`).
    let environment: [String]
    /// Absolute path of the git executable.
    let executable: String

    /// What a finished git call returned.
    struct Output: Sendable {
        var status: Int32
        var stdout: Data
        var stderr: Data
        /// stderr as text, trimmed (git's messages).
        var message: String {
            String(decoding: stderr, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// A git runner for `workTree`; `sshKey` is the identity ssh uses and `knownHosts` the file it checks the hub's
    /// host key against (none: ssh's defaults). A host key that is unknown or changed is always refused.
    init(workTree: String, sshKey: String?, knownHosts: String? = nil, connectTimeoutSeconds: Int = 5) {
        self.workTree = workTree
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GIT_") && $0.key != "SSH_ASKPASS" }
        env["GIT_TERMINAL_PROMPT"] = "0"
        env["GIT_CONFIG_GLOBAL"] = "/dev/null"
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        env["GIT_ASKPASS"] = "/bin/false"
        env["LC_ALL"] = "C"
        func quoted(_ path: String) -> String { "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        var ssh =
            "ssh -o BatchMode=yes -o StrictHostKeyChecking=yes -o ConnectTimeout=\(connectTimeoutSeconds) -o ServerAliveInterval=5 -o ServerAliveCountMax=2"
        if let sshKey { ssh += " -i \(quoted(sshKey)) -o IdentitiesOnly=yes" }
        if let knownHosts { ssh += " -o UserKnownHostsFile=\(quoted(knownHosts))" }
        env["GIT_SSH_COMMAND"] = ssh
        environment = env.map { "\($0.key)=\($0.value)" }.sorted()
        let path = env["PATH"] ?? "/usr/bin:/bin"
        executable =
            path.split(separator: ":").map { "\($0)/git" }.first { access($0, X_OK) == 0 } ?? "/usr/bin/git"
    }

    /// Runs `git -C <workTree> <arguments>`; throws when it cannot start, times out, or (unless
    /// `check` is false) exits non-zero.
    @discardableResult
    func run(
        _ arguments: [String], timeout: Duration, stdin: Data? = nil, check: Bool = true,
        environment extra: [String: String] = [:]
    ) throws(GitError) -> Output {
        let argv = [executable, "-C", workTree] + arguments
        let out = try run(argv: argv, timeout: timeout, stdin: stdin, extra: extra)
        if check && out.status != 0 {
            throw .failed(arguments: arguments, status: out.status, message: out.message)
        }
        return out
    }

    private func run(argv: [String], timeout: Duration, stdin: Data?, extra: [String: String]) throws(GitError) -> Output {
        let arguments = Array(argv.dropFirst(3))
        do {
            let out = try ChildProcess(executable: executable, environment: environment).run(
                argv, timeout: timeout, stdin: stdin, extra: extra)
            return Output(status: out.status, stdout: out.stdout, stderr: out.stderr)
        } catch {
            switch error {
            case .spawn(_, let code): throw .spawn(arguments: arguments, errno: code)
            case .timedOut(_, let after): throw .timedOut(arguments: arguments, after: after)
            }
        }
    }
}

/// A git call that did not do what was asked.
public enum GitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// git could not be started.
    case spawn(arguments: [String], errno: Int32)
    /// git did not finish within its deadline and was killed.
    case timedOut(arguments: [String], after: Duration)
    /// git exited non-zero; `message` is its stderr.
    case failed(arguments: [String], status: Int32, message: String)

    public var description: String {
        switch self {
        case .spawn(let a, let e): return "cannot run git \(a.first ?? ""): \(String(cString: strerror(e))) (errno \(e))"
        case .timedOut(let a, let d): return "git \(a.first ?? "") did not finish within \(d) and was stopped"
        case .failed(let a, let s, let m):
            let last = m.split(separator: "\n").suffix(3).joined(separator: "; ")
            return "git \(a.first ?? "") failed (exit \(s))" + (last.isEmpty ? "" : ": \(last)")
        }
    }
}
