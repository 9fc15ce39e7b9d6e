import Foundation

/// A running `lastset-sim` binary, started with the given arguments.
public final class SimulatorProcess: @unchecked Sendable {
    /// The simulator process.
    public let process: PeerProcess
    /// The TCP port from `READY tcp 127.0.0.1:PORT` (nil for RTU).
    public let port: Int?

    private init(process: PeerProcess, port: Int?) {
        self.process = process
        self.port = port
    }

    /// Starts `lastset-sim arguments…` (include `--tcp 127.0.0.1:0` or `--rtu PATH`) and waits for READY.
    public static func start(_ arguments: [String]) throws(TestSupportError) -> SimulatorProcess {
        let process = try PeerProcess.start(try TestPaths.executable("lastset-sim"), arguments)
        var port: Int? = nil
        let parts = process.readyLine.split(separator: " ")
        if parts.count == 3, parts[1] == "tcp", let colon = parts[2].lastIndex(of: ":") {
            port = Int(parts[2][parts[2].index(after: colon)...])
        }
        return SimulatorProcess(process: process, port: port)
    }

    /// Lines printed by `--log-writes` so far (`WRITE …`).
    public var writeLines: [String] { process.stdoutLines.filter { $0.hasPrefix("WRITE ") } }

    /// Stops the simulator with SIGTERM.
    public func stop() { process.terminate() }
}
