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
        let port = try requested ?? Self.freePort()
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
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        if let dir { p.currentDirectoryURL = dir }
        p.environment = environment.merging(extra) { $1 }
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        var inputFile: URL?
        if let input {
            // From a file, not a pipe: nothing to write while the child runs.
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("hub-input-\(UUID().uuidString)")
            try Data(input.utf8).write(to: url)
            p.standardInput = try FileHandle(forReadingFrom: url)
            inputFile = url
        } else {
            p.standardInput = FileHandle.nullDevice
        }
        defer { if let inputFile { try? FileManager.default.removeItem(at: inputFile) } }
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        let status = p.waitForExit(timeout: 60)
        guard status == 0 else {
            throw TestSupportError(
                "git \(arguments.joined(separator: " ")) exited \(status): \(String(decoding: e, as: UTF8.self))")
        }
        return String(decoding: o, as: UTF8.self)
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket: errno \(errno)") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Bool in
                bind(fd, p, len) == 0 && getsockname(fd, p, &len) == 0
            }
        }
        guard bound else { throw TestSupportError("bind 127.0.0.1:0: errno \(errno)") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
