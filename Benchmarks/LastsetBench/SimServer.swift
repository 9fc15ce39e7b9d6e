/// A `lastset-sim` process serving one page on 127.0.0.1 at a port the OS picked.
final class SimServer {
    /// The TCP port it listens on.
    let port: Int
    private let process: ChildProcess

    /// Starts the simulator and waits for its READY line.
    init(
        executable: String, config: String, page: String, values: String?, delayMs: Int, maxRead: Int? = nil,
        control: Bool = false, name: String, logDirectory: String
    ) throws {
        var args = ["--config", config, "--page", page, "--tcp", "127.0.0.1:0"]
        if control { args.append("--control") }
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

    /// The simulator's process id (for its CPU time in /proc).
    var pid: Int32 { process.pid }

    /// Requests served so far (started with `control`): the "n=" of the acknowledgement of an empty
    /// `faults` command, which changes nothing on a simulator started without faults.
    func framesSeen() throws -> Int {
        try process.send("faults")
        let line = try process.waitFor(prefix: "CONTROL", timeout: .seconds(10))
        guard let field = line.split(separator: " ").first(where: { $0.hasPrefix("n=") }), let n = Int(field.dropFirst(2)) else {
            throw BenchError("simulator: unexpected control answer \"\(line)\"")
        }
        return n
    }

    /// Stops the simulator.
    func stop() { process.stop(grace: .seconds(3)) }
}
