/// A baseline worker (the C libmodbus loop or the pymodbus script) driven over its stdin; it times
/// its own requests, so process start-up and the pipe never count.
final class Worker {
    /// Result of one timed command.
    struct Run {
        /// Time the worker measured around its requests.
        var elapsed: Duration
        /// Requests it sent.
        var requests: Int
        /// Read-backs that differed from what was written (replays).
        var mismatches: Int
    }

    /// "c" or "pymodbus".
    let name: String
    private let process: ChildProcess
    /// The worker's pid.
    var pid: Int32 { process.pid }
    private var connected: [Int: Int] = [:]

    /// Starts the worker program.
    init(name: String, executable: String, arguments: [String], logDirectory: String) throws {
        self.name = name
        process = try ChildProcess(
            name: "worker-\(name)", executable: executable, arguments: arguments, logDirectory: logDirectory)
    }

    private func ask(_ line: String, timeout: Duration) throws -> [Substring] {
        try process.send(line)
        let answer = try process.readLine(timeout: timeout)
        let parts = answer.split(separator: " ")
        guard parts.first == "ok" else { throw BenchError("\(name) worker: \"\(line)\" answered \"\(answer)\"") }
        return Array(parts.dropFirst())
    }

    /// Context id for the server at `port`, connecting (untimed) on first use.
    private func context(port: Int) throws -> Int {
        if let id = connected[port] { return id }
        let id = connected.count
        guard id < 64 else { throw BenchError("\(name) worker: more than 64 servers") }
        _ = try ask("connect \(id) 127.0.0.1 \(port)", timeout: .seconds(10))
        connected[port] = id
        return id
    }

    /// Runs `command` (read, replay, perreg-read, perreg-replay) against the server at `port`.
    func run(
        _ command: String, port: Int, unit: Int = 1, start: Int, count: Int, chunk: Int? = nil, timeout: Duration = .seconds(120)
    ) throws -> Run {
        let id = try context(port: port)
        let line = "\(command) \(id) \(unit) \(start) \(count)" + (chunk.map { " \($0)" } ?? "")
        let parts = try ask(line, timeout: timeout)
        guard parts.count >= 2, let ns = Int64(parts[0]), let requests = Int(parts[1]) else {
            throw BenchError("\(name) worker: unparsable answer \(parts) to \"\(line)\"")
        }
        let mismatches = parts.count > 2 ? Int(parts[2]) ?? -1 : 0
        guard mismatches == 0 else { throw BenchError("\(name) worker: \(mismatches) read-back mismatches in \"\(line)\"") }
        return Run(elapsed: .nanoseconds(ns), requests: requests, mismatches: mismatches)
    }

    /// Runs `command` (readplan, replayplan) with an explicit list of (address, count) requests; with `log`
    /// (the C worker only), `logreadplan`: the reads, then `bytes` appended to `path` and one fdatasync.
    func run(
        _ command: String, port: Int, unit: Int = 1, plan: [(address: Int, count: Int)], log: (path: String, bytes: Int)? = nil,
        timeout: Duration = .seconds(120)
    ) throws -> Run {
        let id = try context(port: port)
        let verb = log == nil ? command : "log\(command)"
        let logArguments = log.map { "\($0.path) \($0.bytes) " } ?? ""
        let line =
            "\(verb) \(id) \(unit) \(logArguments)" + plan.map { "\($0.address):\($0.count)" }.joined(separator: ",")
        let parts = try ask(line, timeout: timeout)
        guard parts.count >= 2, let ns = Int64(parts[0]), let requests = Int(parts[1]) else {
            throw BenchError("\(name) worker: unparsable answer \(parts) to \"\(command)\" with \(plan.count) requests")
        }
        let mismatches = parts.count > 2 ? Int(parts[2]) ?? -1 : 0
        guard mismatches == 0 else { throw BenchError("\(name) worker: \(mismatches) read-back mismatches in \(command)") }
        return Run(elapsed: .nanoseconds(ns), requests: requests, mismatches: mismatches)
    }

    /// Runs `windowplan`: writes (FC16) and reads (FC03, compared) in the order given. With `log` (the C
    /// worker only), `logwindowplan`: `intent` bytes appended to `path` and fdatasynced before the first
    /// frame, `outcome` bytes appended and fdatasynced after the last read (a replay's durable minimum).
    func runWindows(
        port: Int, unit: Int = 1, ops: [BenchOp], log: (path: String, intent: Int, outcome: Int)? = nil,
        timeout: Duration = .seconds(120)
    ) throws -> Run {
        let id = try context(port: port)
        let head = log.map { "logwindowplan \(id) \(unit) \($0.path) \($0.intent) \($0.outcome) " } ?? "windowplan \(id) \(unit) "
        let line = head + ops.map { "\($0.write ? "w" : "r")\($0.address):\($0.count)" }.joined(separator: ",")
        let parts = try ask(line, timeout: timeout)
        guard parts.count >= 3, let ns = Int64(parts[0]), let requests = Int(parts[1]), let mismatches = Int(parts[2]) else {
            throw BenchError("\(name) worker: unparsable answer \(parts) to windowplan with \(ops.count) requests")
        }
        guard mismatches == 0 else { throw BenchError("\(name) worker: \(mismatches) read-back mismatches in windowplan") }
        return Run(elapsed: .nanoseconds(ns), requests: requests, mismatches: mismatches)
    }

    /// Writes `bytes` bytes to `path` durably (temp file, fsync, rename, fsync directory); the time taken.
    func durableWrite(path: String, bytes: Int) throws -> Duration {
        let parts = try ask("durable \(path) \(bytes)", timeout: .seconds(60))
        guard parts.count == 1, let ns = Int64(parts[0]) else { throw BenchError("\(name) worker: durable answered \(parts)") }
        return .nanoseconds(ns)
    }

    /// Asks it to quit, then stops it.
    func stop() {
        try? process.send("quit")
        process.stop(grace: .seconds(2))
    }
}
