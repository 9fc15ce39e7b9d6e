import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs one program of Debian's (git, ssh-keygen) to its end with a deadline: a child process in its own process
/// group with no descriptor of the daemon, its stdin fed from memory, its stdout and stderr collected at once, killed
/// with its process group when the deadline passes. `GitCommand` and `SSHSigningKey` are its callers.
struct ChildProcess: Sendable {
    /// Absolute path of the program.
    let executable: String
    /// The whole environment it gets (`KEY=value`).
    let environment: [String]

    /// What a finished child returned.
    struct Output: Sendable {
        var status: Int32
        var stdout: Data
        var stderr: Data
    }

    /// Runs `argv` (its first element the program's name as it sees it) with `stdin` (nil: /dev/null) and the
    /// environment plus `extra`; throws when it cannot start or outlives `timeout` (then it and its process group
    /// are killed). A non-zero exit is the caller's to judge.
    func run(_ argv: [String], timeout: Duration, stdin: Data? = nil, extra: [String: String] = [:]) throws(ChildProcessError)
        -> Output
    {
        let child = try spawn(argv: argv, withInput: stdin != nil, extra: extra)
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
            throw .timedOut(program: executable, after: timeout)
        }
        let exit: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Output(status: exit, stdout: stdout, stderr: stderr)
    }

    /// A started child: its pid and the parent's ends of its pipes (`input` -1 when it reads /dev/null).
    private struct Child {
        var pid: pid_t
        var output: Int32
        var errors: Int32
        var input: Int32
    }

    /// Starts the program in its own process group with pipes for stdout and stderr (and stdin when `withInput`, else
    /// /dev/null); no descriptor of the daemon reaches it.
    private func spawn(argv: [String], withInput: Bool, extra: [String: String]) throws(ChildProcessError)
        -> Child
    {
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        var inPipe: [Int32] = [-1, -1]
        guard Self.pipeCloexec(&outPipe) else { throw .spawn(program: executable, errno: errno) }
        guard Self.pipeCloexec(&errPipe), !withInput || Self.pipeCloexec(&inPipe) else {
            let e = errno
            for fd in outPipe + errPipe where fd >= 0 { close(fd) }
            throw .spawn(program: executable, errno: e)
        }
        let inputFD = withInput ? inPipe[0] : open("/dev/null", O_RDONLY | O_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputFD, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        // Nothing of the daemon's (sockets, files) reaches the child (git, ssh, ssh-keygen).
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
            throw .spawn(program: executable, errno: rc)
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

extension ChildProcess {
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

/// A child that could not be run to its end.
public enum ChildProcessError: Error, Sendable, Hashable, CustomStringConvertible {
    /// It could not be started.
    case spawn(program: String, errno: Int32)
    /// It did not finish within its deadline and was killed.
    case timedOut(program: String, after: Duration)

    public var description: String {
        switch self {
        case .spawn(let p, let e): return "cannot run \(p): \(String(cString: strerror(e))) (errno \(e))"
        case .timedOut(let p, let d): return "\(p) did not finish within \(d) and was stopped"
        }
    }
}
