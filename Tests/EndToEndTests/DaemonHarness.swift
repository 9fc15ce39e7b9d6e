import Foundation
import Glibc
import LastsetClient
import LastsetCore
import LastsetSystem
import TestSupport
import XCTest

/// A running `lastsetd` on a config of the test's making, with its own data directory, socket and notify socket.
final class DaemonHarness: @unchecked Sendable {
    let dir: URL
    let configURL: URL
    let socketPath: String
    let dataDir: URL
    let notify: NotifyReceiver
    private(set) var process: Process
    private var stderrPipe = Pipe()
    private var stderrDrain: PipeDrain?
    private let stderrData = LockedData()
    private let environment: [String: String]

    /// Writes `config` (JSON5 text), starts the daemon and waits for READY=1 on the notify socket.
    /// `dataDirectory`: another (stopped) daemon's data directory, to restart on it.
    init(config: String, environment: [String: String] = [:], dataDirectory: URL? = nil) throws {
        dir = try TestPaths.temporaryDirectory(prefix: "e2e")
        configURL = dir.appendingPathComponent("lastset.json")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        socketPath = dir.appendingPathComponent("api.sock").path
        dataDir = dataDirectory ?? dir.appendingPathComponent("data")
        notify = try NotifyReceiver(path: dir.appendingPathComponent("notify.sock").path)
        self.environment = environment
        process = Process()
        try launch()
    }

    private func launch() throws {
        process = Process()
        stderrPipe = Pipe()
        process.executableURL = try TestPaths.executable("lastsetd")
        process.arguments = [
            "--config", configURL.path, "--data-dir", dataDir.path, "--socket", socketPath, "--log-level", "debug",
        ]
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = notify.path
        env.removeValue(forKey: "WATCHDOG_USEC")
        env.removeValue(forKey: "JOURNAL_STREAM")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardError = stderrPipe
        process.standardOutput = FileHandle.nullDevice
        let sink = stderrData
        try process.run()
        stderrDrain = PipeDrain(stderrPipe.fileHandleForReading, name: "lastsetd stderr") { sink.append($0) }
        let (ready, seen) = notify.wait(for: "READY=1", timeout: 15)
        guard ready else {
            process.terminate()
            throw TestSupportError("lastsetd sent no READY=1 (got \(seen)); stderr:\n\(stderr)")
        }
        // READY travels by datagram, the log through a pipe read on another thread: wait for the start-up
        // line (the last one before READY), so a test reading `stderr` sees everything logged at start.
        let end = Date().addingTimeInterval(5)
        while !stderr.contains("; API on ") && Date() < end { usleep(2_000) }
    }

    /// Runs `lastsetd arguments…` (or `executable`) to its exit, without a notify socket and with `environment`
    /// added: a daemon that must refuse to start. Killed past `timeout` (one that serves instead).
    static func runToExit(
        _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 20, executable: String? = nil
    ) throws -> (status: Int32, stderr: String) {
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NOTIFY_SOCKET")
        for (k, v) in environment { env[k] = v }
        let run = try ProgramRun.run(
            try executable.map { URL(fileURLWithPath: $0) } ?? TestPaths.executable("lastsetd"), arguments, environment: env,
            timeout: timeout)
        return (run.status, run.stderr)
    }

    /// Starts the daemon again on the same config, data directory and socket (after `stop`); its log is
    /// appended to what `stderr` holds.
    func restart() throws {
        // The stopped daemon's log is read to its end first, so nothing of it is appended after the new one's.
        stderrDrain?.waitForEnd(timeout: 5)
        try launch()
    }

    /// What the daemon logged so far.
    var stderr: String { String(decoding: stderrData.value, as: UTF8.self) }

    /// Waits (at most `timeout`) until the daemon's stderr contains `text`: a line logged around a
    /// readiness notification reaches the pipe reader after it, later still on a loaded machine.
    func stderrContains(_ text: String, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !stderr.contains(text) {
            guard Date() < deadline else { return false }
            usleep(10_000)
        }
        return true
    }

    /// An API client on the daemon's socket.
    var client: HTTPClient { HTTPClient(endpoint: .unix(path: socketPath), timeout: .seconds(60)) }

    /// Calls the API; returns status and body.
    @discardableResult
    func api(_ method: String, _ path: String, _ body: String? = nil) throws -> HTTPClientResponse {
        try client.send(method: method, path: path, body: body.map { Array($0.utf8) })
    }

    /// Decodes an API response body.
    func decode<T: Decodable>(_ type: T.Type, _ response: HTTPClientResponse) throws -> T {
        try APICoding.decoder().decode(type, from: Data(response.body))
    }

    /// Runs the built `lastset` CLI against this daemon.
    func cli(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let run = try ProgramRun.built("lastset", ["--socket", socketPath] + arguments)
        return (run.status, run.stdout, run.stderr)
    }

    /// Sends a signal and waits (up to `timeout`) for the exit status; nil when it did not exit.
    func stop(signal: Int32 = SIGTERM, timeout: TimeInterval = 15) -> Int32? {
        kill(process.processIdentifier, signal)
        let started = Date()
        let status = process.waitForExit(timeout: timeout)
        return Date().timeIntervalSince(started) < timeout ? status : nil
    }

    /// The audit log's records, each intent (`started`) folded into the record completing it.
    func auditRecords() throws -> [AuditRecord] {
        let all = try rawAuditRecords()
        let completed = Set(all.filter { $0.result != .started }.compactMap(\.job))
        return all.filter { $0.result != .started || !completed.contains($0.job ?? "") }
    }

    /// Every record of the audit log, intents included, in the order they were recorded (read with `sqlite3`, as
    /// an administrator reads `lastset.db`).
    func rawAuditRecords() throws -> [AuditRecord] {
        try SQLiteShell.query(dataDir.appendingPathComponent("lastset.db"), "SELECT record FROM audit_record ORDER BY seq").map {
            try APICoding.decoder().decode(AuditRecord.self, from: Data($0.utf8))
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitForExit()
        }
        stderrDrain?.waitForEnd(timeout: 5)
        try? FileManager.default.removeItem(at: dir)
    }
}

/// Bytes appended from a pipe's reader thread.
final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func append(_ d: Data) { lock.withLock { data.append(d) } }
    var value: Data { lock.withLock { data } }
}
