import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A fleet hub for tests: a bare git repository in a temp directory, reachable as a `file://` URL and,
/// when served, through `git daemon` on 127.0.0.1 (push enabled) on a port chosen at run time.
public final class HubRepository: @unchecked Sendable {
    /// The directory holding `hub.git`.
    public let root: URL
    /// The bare repository.
    public var path: URL { root.appendingPathComponent("hub.git") }
    /// The hub as a `file://` URL.
    public var fileURL: String { "file://" + path.path }
    /// The port `serve` last used.
    public private(set) var port: Int?
    private var daemon: Process?
    private let lock = NSLock()

    /// Creates the bare repository (branch `main`).
    public init() throws {
        root = try TestPaths.temporaryDirectory(prefix: "hub")
        try Self.git(["init", "-q", "--bare", "-b", "main", path.path], in: root)
    }

    /// Serves the hub with `git daemon` (on `port`, else a free one) and waits until it is ready;
    /// returns its `git://` URL.
    @discardableResult
    public func serve(port requested: Int? = nil) throws -> String {
        let port = try requested ?? TestPorts.freeLoopbackPort()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        p.arguments = [
            "daemon", "--reuseaddr", "--listen=127.0.0.1", "--port=\(port)", "--base-path=\(root.path)", "--export-all",
            "--enable=receive-pack", "--informative-errors", "--verbose",
        ]
        p.environment = Self.environment
        try Self.start(
            p, log: root.appendingPathComponent("daemon-\(port).log"), ready: "Ready to rumble",
            what: "git daemon on 127.0.0.1:\(port)")
        lock.withLock {
            daemon = p
            self.port = port
        }
        return "git://127.0.0.1:\(port)/hub.git"
    }

    /// Starts a server whose stderr (and stdout) go to `log` — no pipe to fill, no dispatch source to outlive the
    /// process — and waits (15 s at most) until `ready` appears there; kills it and throws when it does not.
    public static func start(_ p: Process, log: URL, ready: String, what: String) throws {
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let sink = try FileHandle(forWritingTo: log)
        defer { try? sink.close() }
        p.standardError = sink
        p.standardOutput = sink
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(15)
        var seen = ""
        while Date() < deadline {
            seen = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if seen.contains(ready) || !p.isRunning { break }
            usleep(5_000)
        }
        guard seen.contains(ready) else {
            kill(p.processIdentifier, SIGKILL)
            p.waitForExit(timeout: 5)
            throw TestSupportError("\(what) did not become ready: \(seen)")
        }
    }

    /// The served URL (after `serve`).
    public var gitURL: String { "git://127.0.0.1:\(port ?? 0)/hub.git" }

    /// Stops `git daemon` (the hub becomes unreachable; connections are refused).
    public func stop() {
        guard
            let p = lock.withLock({ () -> Process? in
                defer { daemon = nil }
                return daemon
            })
        else { return }
        kill(p.processIdentifier, SIGTERM)
        p.waitForExit(timeout: 10)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// A plain environment for git in tests: no user config, no prompts.
    public static let environment: [String: String] = {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GIT_") }
        env["GIT_CONFIG_GLOBAL"] = "/dev/null"
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        env["GIT_TERMINAL_PROMPT"] = "0"
        env["GIT_AUTHOR_NAME"] = "test"
        env["GIT_AUTHOR_EMAIL"] = "test@example.invalid"
        env["GIT_COMMITTER_NAME"] = "test"
        env["GIT_COMMITTER_EMAIL"] = "test@example.invalid"
        return env
    }()

    /// Runs git in `dir`; returns stdout, throws with stderr on a non-zero exit.
    @discardableResult
    public static func git(
        _ arguments: [String], in dir: URL, environment extra: [String: String] = [:], input: String? = nil
    ) throws -> String {
        try run("/usr/bin/git", arguments, in: dir, environment: extra, input: input)
    }

    /// Runs a tool; returns stdout, throws with stderr on a non-zero exit.
    @discardableResult
    public static func run(
        _ tool: String, _ arguments: [String], in dir: URL? = nil, environment extra: [String: String] = [:],
        input: String? = nil
    ) throws -> String {
        let run = try ProgramRun.run(
            URL(fileURLWithPath: tool), arguments, in: dir, environment: environment.merging(extra) { $1 },
            input: input.map { Data($0.utf8) })
        guard run.status == 0 else {
            throw TestSupportError(
                "\(URL(fileURLWithPath: tool).lastPathComponent) \(arguments.joined(separator: " ")) exited \(run.status): \(run.stderr)"
            )
        }
        return run.stdout
    }
}
