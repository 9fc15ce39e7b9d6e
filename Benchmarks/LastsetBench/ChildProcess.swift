import Foundation
import Glibc

/// A child process with a line-oriented stdout (and a stdin for workers), stderr to a log file,
/// stopped with SIGTERM (then SIGKILL) within a bounded time.
final class ChildProcess: @unchecked Sendable {
    /// Name used in error messages.
    let name: String
    /// Path of the stderr log.
    let logPath: String
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []

    /// Starts `executable` with `arguments`; `environment` entries are added to the bench's own.
    init(name: String, executable: String, arguments: [String], environment: [String: String] = [:], logDirectory: String) throws
    {
        self.name = name
        self.logPath = "\(logDirectory)/\(name).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: logPath)
        do {
            try process.run()
        } catch {
            throw BenchError("cannot start \(name) (\(executable)): \(error)")
        }
    }

    /// The process id.
    var pid: Int32 { process.processIdentifier }

    /// Whether it still runs.
    var isRunning: Bool { process.isRunning }

    /// Writes one line to its stdin.
    func send(_ line: String) throws {
        do {
            try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
        } catch {
            throw BenchError("\(name): cannot send \"\(line)\": \(error) (see \(logPath))")
        }
    }

    /// The next stdout line, waiting at most `timeout`.
    func readLine(timeout: Duration) throws -> String {
        let deadline = ContinuousClock.now + timeout
        let fd = output.fileHandleForReading.fileDescriptor
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw BenchError("\(name): no answer within \(timeout) (see \(logPath))") }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&pfd, 1, ms)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw BenchError("\(name): exited or closed stdout (see \(logPath))") }
            buffer += chunk[..<n]
        }
    }

    /// Waits for a line starting with `prefix` (other lines are skipped) and returns it.
    func waitFor(prefix: String, timeout: Duration) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let line = try readLine(timeout: max(.milliseconds(1), deadline - ContinuousClock.now))
            if line.hasPrefix(prefix) { return line }
        }
    }

    /// Sends SIGTERM, waits up to `grace` for the exit, then SIGKILLs; returns the exit status if it exited.
    @discardableResult
    func stop(grace: Duration = .seconds(5)) -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while process.isRunning && ContinuousClock.now < deadline { usleep(5_000) }
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }
}

extension ChildProcess {
    /// Runs a short-lived tool to completion and returns its stdout; throws when it fails.
    static func output(of executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do {
            try process.run()
        } catch {
            throw BenchError("cannot run \(executable): \(error)")
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError(
                "\(executable) \(arguments) exited \(process.terminationStatus): \(String(decoding: errors, as: UTF8.self).prefix(300))"
            )
        }
        return String(decoding: data, as: UTF8.self)
    }
}
