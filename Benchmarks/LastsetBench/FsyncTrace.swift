import Foundation
import Glibc

/// strace attached to every thread of a running process (`strace -f -p`, threads it starts later included)
/// while one job runs: the fsyncs the job cost, counted from the trace's timestamps within the job's window.
struct FsyncTrace {
    /// The calls that make data durable.
    static let calls = ["fdatasync", "fsync", "sync_file_range", "syncfs"]

    /// Attaches to `pid`, runs `job`, detaches; returns the sync calls any thread of `pid` made while `job` ran.
    static func count(pid: Int32, trace path: String, job: () throws -> Void) throws -> [String] {
        let strace = "/usr/bin/strace"
        guard FileManager.default.isExecutableFile(atPath: strace) else { throw BenchError("\(strace) is not installed") }
        // Spawned with an empty signal mask: this process's threads block SIGINT, and a strace inheriting
        // that mask would never take the SIGINT that makes it detach.
        let errorsPath = path + ".stderr"
        let argv = ["strace", "-f", "-ttt", "-e", "trace=" + calls.joined(separator: ","), "-o", path, "-p", String(pid)]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorsPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        let spawned = posix_spawn(&child, strace, &actions, &attributes, cArgs, environ)
        guard spawned == 0 else { throw BenchError("cannot start strace: errno \(spawned)") }
        var reaped = false
        func detach() {
            guard !reaped else { return }
            kill(child, SIGINT)
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            reaped = true
        }
        defer { detach() }
        // "strace: Process N attached with T threads" once every thread of the group is attached.
        let deadline = ContinuousClock.now + .seconds(10)
        func errors() -> String { (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? "" }
        while !errors().contains("attached") {
            var status: Int32 = 0
            let exited = waitpid(child, &status, WNOHANG) == child
            if exited { reaped = true }
            guard !exited, ContinuousClock.now < deadline else {
                throw BenchError("strace did not attach to pid \(pid): \(errors().prefix(300))")
            }
            usleep(2_000)
        }
        let start = Date().timeIntervalSince1970
        try job()
        let end = Date().timeIntervalSince1970
        detach()
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        // Lines are "PID SECONDS.MICROS call(args) = result", or the call's "<unfinished ...>" half (counted)
        // and its "<... call resumed>" half (not counted again).
        return text.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ", maxSplits: 2)
            guard fields.count == 3, let t = Double(fields[1]), t >= start, t <= end,
                calls.contains(where: { fields[2].hasPrefix($0 + "(") })
            else { return nil }
            return String(fields[2])
        }
    }
}
