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
        let child = try spawn(argv: argv, arguments: arguments, withInput: stdin != nil, extra: extra)
        let deadline = ContinuousClock.now + timeout
        let (stdout, stderr, expired) = Self.collect(child, input: stdin.map { [UInt8]($0) } ?? [], deadline: deadline)
        var timedOut = expired
        var status: Int32 = 0
        if !timedOut {
            // Both pipes closed: the child is exiting; it still gets the deadline.
            while true {
                let w = waitpid(child.pid, &status, WNOHANG)
                if w == child.pid || (w < 0 && errno != EINTR) { break }
                if ContinuousClock.now >= deadline {
                    timedOut = true
                    break
                }
                usleep(1000)
            }
        }
        if timedOut {
            kill(-child.pid, SIGKILL)
            kill(child.pid, SIGKILL)
            while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
            throw .timedOut(arguments: arguments, after: timeout)
        }
        let exit: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Output(status: exit, stdout: stdout, stderr: stderr)
    }

    /// A started git: its pid and the parent's ends of its pipes (`input` -1 when it reads /dev/null).
    private struct Child {
        var pid: pid_t
        var output: Int32
        var errors: Int32
        var input: Int32
    }

    /// Starts git in its own process group with pipes for stdout and stderr (and stdin when `withInput`, else
    /// /dev/null); no descriptor of the daemon reaches it.
    private func spawn(argv: [String], arguments: [String], withInput: Bool, extra: [String: String]) throws(GitError)
        -> Child
    {
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        var inPipe: [Int32] = [-1, -1]
        guard Self.pipeCloexec(&outPipe) else { throw .spawn(arguments: arguments, errno: errno) }
        guard Self.pipeCloexec(&errPipe), !withInput || Self.pipeCloexec(&inPipe) else {
            let e = errno
            for fd in outPipe + errPipe where fd >= 0 { close(fd) }
            throw .spawn(arguments: arguments, errno: e)
        }
        let inputFD = withInput ? inPipe[0] : open("/dev/null", O_RDONLY | O_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputFD, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        // Nothing of the daemon's (sockets, files) reaches git or ssh.
        for fd in Self.inheritableDescriptors() { posix_spawn_file_actions_addclose(&actions, fd) }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        // Own process group (the deadline kills ssh too); no blocked signals inherited from our
        // threads; default SIGPIPE.
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigmask(&attr, &none)
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setpgroup(&attr, 0)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        let env = extra.isEmpty ? environment : environment + extra.map { "\($0.key)=\($0.value)" }
        let cEnv = env.map { strdup($0) } + [nil]
        defer {
            for p in cArgs { free(p) }
            for p in cEnv { free(p) }
        }
        let rc = posix_spawn(&pid, executable, &actions, &attr, cArgs, cEnv)
        close(outPipe[1])
        close(errPipe[1])
        close(inputFD)
        guard rc == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            if withInput { close(inPipe[1]) }
            throw .spawn(arguments: arguments, errno: rc)
        }
        return Child(pid: pid, output: outPipe[0], errors: errPipe[0], input: withInput ? inPipe[1] : -1)
    }

    /// Writes `input` to the child and reads its stdout and stderr until both close or the deadline passes
    /// (`timedOut`); closes the parent's ends.
    private static func collect(_ child: Child, input: [UInt8], deadline: ContinuousClock.Instant) -> (
        stdout: Data, stderr: Data, timedOut: Bool
    ) {
        var stdout = Data()
        var stderr = Data()
        var open = [child.output, child.errors]
        var inputOffset = 0
        var writeFD = child.input
        if writeFD >= 0 {
            _ = fcntl(writeFD, F_SETFL, fcntl(writeFD, F_GETFL) | O_NONBLOCK)
            if input.isEmpty {
                close(writeFD)
                writeFD = -1
            }
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        var timedOut = false
        while !open.isEmpty || writeFD >= 0 {
            let left = deadline - ContinuousClock.now
            if left <= .zero {
                timedOut = true
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if writeFD >= 0 { fds.append(pollfd(fd: writeFD, events: Int16(POLLOUT), revents: 0)) }
            let ms = Int32(
                min(1000, max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            let n = poll(&fds, nfds_t(fds.count), ms)
            if n < 0 && errno != EINTR { break }
            guard n > 0 else { continue }
            for p in fds where p.revents != 0 {
                if p.fd == writeFD {
                    let w = input.withUnsafeBytes { raw in write(writeFD, raw.baseAddress! + inputOffset, raw.count - inputOffset)
                    }
                    if w > 0 { inputOffset += w }
                    if (w < 0 && errno != EAGAIN && errno != EINTR) || inputOffset >= input.count {
                        close(writeFD)
                        writeFD = -1
                    }
                    continue
                }
                let r = read(p.fd, &buffer, buffer.count)
                if r > 0 {
                    if p.fd == child.output {
                        stdout.append(contentsOf: buffer[0..<r])
                    } else {
                        stderr.append(contentsOf: buffer[0..<r])
                    }
                } else if r == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(p.fd)
                    open.removeAll { $0 == p.fd }
                }
            }
        }
        for fd in open { close(fd) }
        if writeFD >= 0 { close(writeFD) }
        return (stdout, stderr, timedOut)
    }
}

extension GitCommand {
    /// A pipe whose ends close on exec (only the dup2'd copies reach the child).
    fileprivate static func pipeCloexec(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// Descriptors above 2 without close-on-exec, which a child would otherwise inherit.
    fileprivate static func inheritableDescriptors() -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { Int32($0) }.filter { fd in
            guard fd > 2 else { return false }
            let flags = fcntl(fd, F_GETFD)
            return flags >= 0 && flags & FD_CLOEXEC == 0
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
