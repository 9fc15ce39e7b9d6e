import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A fleet hub reached over real SSH, the way plants run it: Debian's OpenSSH server started by the test on
/// 127.0.0.1 (a port chosen at run time) with its own host key and config, public-key authentication only, and the
/// bare repository of a `HubRepository` behind it. Clients check the host key against `knownHosts`
/// (`StrictHostKeyChecking=yes`) and log in with `clientKey`.
///
/// As root, sshd needs its privilege-separation directory `/run/sshd`: it runs in a mount namespace of its own with
/// a private tmpfs on `/run` holding it, so nothing of the machine's `/run` is touched.
public final class SSHHub: @unchecked Sendable {
    /// The bare repository behind the server.
    public let hub: HubRepository
    /// Keys, config and log of the server.
    public let dir: URL
    /// The private key clients log in with (authorised on the server).
    public var clientKey: String { dir.appendingPathComponent("client_key").path }
    /// A known_hosts file holding the server's host key for `[127.0.0.1]:port`.
    public var knownHosts: String { dir.appendingPathComponent("known_hosts").path }
    /// The port the server listens on.
    public let port: Int
    /// The user clients log in as (the one running the tests: sshd can only log in others as root).
    public let user: String
    private var server: Process?
    private let lock = NSLock()

    /// Makes the keys and config and starts the server; returns when it listens.
    public init(hub: HubRepository? = nil) throws {
        self.hub = try hub ?? HubRepository()
        dir = try TestPaths.temporaryDirectory(prefix: "ssh")
        port = try TestPorts.freeLoopbackPort()
        user = String(cString: getpwuid(getuid()).pointee.pw_name)
        for name in ["host_key", "client_key"] {
            try HubRepository.run(
                "/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", dir.appendingPathComponent(name).path])
        }
        try FileManager.default.copyItem(
            at: dir.appendingPathComponent("client_key.pub"), to: dir.appendingPathComponent("authorized_keys"))
        let hostKey = try String(contentsOf: dir.appendingPathComponent("host_key.pub"), encoding: .utf8)
            .split(separator: " ").prefix(2).joined(separator: " ")
        try "[127.0.0.1]:\(port) \(hostKey)\n".write(toFile: knownHosts, atomically: true, encoding: .utf8)
        try config().write(to: dir.appendingPathComponent("sshd_config"), atomically: true, encoding: .utf8)
        try start()
    }

    /// The hub's `ssh://` URL.
    public var url: String { "ssh://\(user)@127.0.0.1:\(port)\(hub.path.path)" }

    /// Another client key, authorised on the server too (one key per control host, as a plant has).
    public func authorise(keyNamed name: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try HubRepository.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path])
        let line = try String(contentsOfFile: path + ".pub", encoding: .utf8)
        let handle = try FileHandle(forWritingTo: dir.appendingPathComponent("authorized_keys"))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(line.utf8))
        return path
    }

    private func config() -> String {
        """
        Port \(port)
        ListenAddress 127.0.0.1
        HostKey \(dir.appendingPathComponent("host_key").path)
        PidFile none
        AuthorizedKeysFile \(dir.appendingPathComponent("authorized_keys").path)
        AuthenticationMethods publickey
        PubkeyAuthentication yes
        PasswordAuthentication no
        KbdInteractiveAuthentication no
        PermitRootLogin prohibit-password
        AllowUsers \(user)
        StrictModes no
        UsePAM no
        LogLevel VERBOSE

        """
    }

    /// Starts the server (again, after `stop`) on the same port and waits until it listens.
    public func start() throws {
        let config = dir.appendingPathComponent("sshd_config").path
        let p = Process()
        if getuid() == 0 {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            p.arguments = [
                "--mount", "--propagation", "private", "/bin/sh", "-c",
                "mount -t tmpfs -o size=1m,mode=0755 tmpfs /run && mkdir -m 0755 /run/sshd && exec /usr/sbin/sshd -D -e -f \"$0\"",
                config,
            ]
        } else {
            p.executableURL = URL(fileURLWithPath: "/usr/sbin/sshd")
            p.arguments = ["-D", "-e", "-f", config]
        }
        try HubRepository.start(
            p, log: dir.appendingPathComponent("sshd-\(Date().timeIntervalSince1970).log"),
            ready: "Server listening on 127.0.0.1 port \(port)", what: "sshd on 127.0.0.1:\(port)")
        lock.withLock { server = p }
    }

    /// Stops the server: the hub becomes unreachable (connections refused).
    public func stop() {
        guard
            let p = lock.withLock({ () -> Process? in
                defer { server = nil }
                return server
            })
        else { return }
        kill(p.processIdentifier, SIGTERM)
        _ = p.waitForExit(timeout: 10)
    }

    /// What the server logged (every start), for failure messages.
    public var log: String {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".log") }
        return names.sorted().compactMap { try? String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8) }
            .joined(separator: "\n")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: dir)
    }
}
