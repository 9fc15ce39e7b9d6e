import Foundation

/// A child process started by a test (a peer server, a simulator, socat), whose stdout lines are
/// collected; `start` returns once a line starting with the ready prefix was printed.
public final class PeerProcess: @unchecked Sendable {
    /// The underlying process.
    public let process: Process
    /// The ready line (e.g. `READY 40123`).
    public private(set) var readyLine = ""
    /// A short name for messages.
    public let name: String

    private let condition = NSCondition()
    private var stdoutBuffer = Data()
    private var lines: [String] = []
    private var stderrText = ""
    private var stdoutClosed = false
    private var drains: [PipeDrain] = []

    private init(process: Process, name: String) {
        self.process = process
        self.name = name
    }

    /// Starts `executable` with `arguments` and waits (up to `timeout`) for a stdout line starting with
    /// `readyPrefix`; throws with the collected stderr when the process exits or the time runs out.
    public static func start(
        _ executable: URL, _ arguments: [String], readyPrefix: String? = "READY",
        timeout: TimeInterval = 15, environment: [String: String]? = nil
    ) throws(TestSupportError) -> PeerProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let peer = PeerProcess(process: process, name: executable.lastPathComponent)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try runWithCleanSignalMask(process)
        // The readers hold the peer weakly so that dropping the last reference terminates the child.
        peer.drains = [
            PipeDrain(out.fileHandleForReading, name: "\(peer.name) stdout") { [weak peer] in peer?.receiveStdout($0) },
            PipeDrain(err.fileHandleForReading, name: "\(peer.name) stderr") { [weak peer] in peer?.receiveStderr($0) },
        ]
        guard let readyPrefix else { return peer }
        guard let line = peer.waitForLine(timeout: timeout, where: { $0.hasPrefix(readyPrefix) }) else {
            let why =
                !peer.hasExited
                ? "no \"\(readyPrefix)\" line within \(timeout) s"
                : process.isRunning ? "exited" : "exited with status \(process.terminationStatus)"
            peer.terminate()
            throw TestSupportError("\(peer.name) \(arguments.joined(separator: " ")): \(why); stderr: \(peer.stderr)")
        }
        peer.readyLine = line
        return peer
    }

    /// Runs `process` from a fresh thread whose signal mask is empty. A child inherits the spawning
    /// thread's mask, and Dispatch/Swift-concurrency threads block SIGTERM: a child spawned from an
    /// async test would then ignore SIGTERM.
    public static func runWithCleanSignalMask(_ process: Process) throws(TestSupportError) {
        final class Outcome: @unchecked Sendable { var error: (any Error)? }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var empty = sigset_t()
            sigemptyset(&empty)
            pthread_sigmask(SIG_SETMASK, &empty, nil)
            do { try process.run() } catch { outcome.error = error }
            done.signal()
        }
        thread.start()
        done.wait()
        if let error = outcome.error {
            throw TestSupportError("cannot start \(process.executableURL?.path ?? "?"): \(error)")
        }
    }

    private func receiveStdout(_ data: Data) {
        condition.lock()
        defer { condition.unlock() }
        if data.isEmpty {
            stdoutClosed = true
        } else {
            stdoutBuffer.append(data)
            while let nl = stdoutBuffer.firstIndex(of: 0x0A) {
                let lineData = stdoutBuffer[stdoutBuffer.startIndex..<nl]
                lines.append(String(decoding: lineData, as: UTF8.self))
                stdoutBuffer.removeSubrange(stdoutBuffer.startIndex...nl)
            }
        }
        condition.broadcast()
    }

    private func receiveStderr(_ data: Data) {
        condition.lock()
        stderrText += String(decoding: data, as: UTF8.self)
        condition.unlock()
    }

    /// Every stdout line so far (the ready line included).
    public var stdoutLines: [String] {
        condition.lock()
        defer { condition.unlock() }
        return lines
    }

    /// Everything written to stderr so far.
    public var stderr: String {
        condition.lock()
        defer { condition.unlock() }
        return stderrText
    }

    /// Waits up to `timeout` for a stdout line matching `predicate` (earlier lines count too).
    public func waitForLine(timeout: TimeInterval = 10, where predicate: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let line = lines.first(where: predicate) { return line }
            if stdoutClosed || Date() >= deadline { return nil }
            _ = condition.wait(until: min(deadline, Date().addingTimeInterval(0.2)))
        }
    }

    /// Waits until at least `count` stdout lines satisfy `predicate`; returns them (possibly fewer on timeout).
    public func waitForLines(count: Int, timeout: TimeInterval = 10, where predicate: (String) -> Bool) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let found = lines.filter(predicate)
            if found.count >= count || stdoutClosed || Date() >= deadline { return found }
            _ = condition.wait(until: min(deadline, Date().addingTimeInterval(0.2)))
        }
    }

    /// Sends SIGTERM, waits up to `grace` seconds, then SIGKILL; idempotent.
    public func terminate(grace: TimeInterval = 3) {
        guard !hasExited else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(grace)
        while !hasExited && Date() < deadline { usleep(5_000) }
        if !hasExited {
            kill(process.processIdentifier, SIGKILL)
            while !hasExited { usleep(5_000) }
        }
    }

    /// Whether the child has exited. `Process.isRunning` is only updated once Foundation reaps the
    /// child, which can lag by seconds inside async tests; a zombie in /proc has exited too.
    public var hasExited: Bool {
        guard process.isRunning else { return true }
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        return state == "Z" || state == "X"
    }

    /// Sends a signal to the process.
    public func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    deinit { terminate(grace: 1) }
}
