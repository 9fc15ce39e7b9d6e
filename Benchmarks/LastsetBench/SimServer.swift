/// A `lastset-sim` process serving one page on 127.0.0.1 at a port the OS picked.
final class SimServer {
    /// The TCP port it listens on.
    let port: Int
    private let process: ChildProcess

    /// Starts the simulator and waits for its READY line.
    init(
        executable: String, config: String, page: String, values: String?, delayMs: Int, maxRead: Int? = nil, name: String,
        logDirectory: String
    ) throws {
        var args = ["--config", config, "--page", page, "--tcp", "127.0.0.1:0"]
        if let values { args += ["--values", values] }
        if delayMs > 0 { args += ["--delay-ms", String(delayMs)] }
        if let maxRead { args += ["--max-read", String(maxRead)] }
        process = try ChildProcess(name: name, executable: executable, arguments: args, logDirectory: logDirectory)
        let line = try process.waitFor(prefix: "READY", timeout: .seconds(60))
        guard let colon = line.lastIndex(of: ":"), let port = Int(line[line.index(after: colon)...]) else {
            throw BenchError("\(name): unexpected READY line \"\(line)\"")
        }
        self.port = port
    }

    /// Stops the simulator.
    /// The simulator's process id (for its CPU time in /proc).
    var pid: Int32 { process.pid }

    func stop() { process.stop(grace: .seconds(3)) }
}
