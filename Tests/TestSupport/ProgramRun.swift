import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a program run to its end printed, and how it ended.
public struct ProgramOutput: Sendable {
    /// The exit status (128 + signal when killed).
    public var status: Int32
    /// The signal that ended the program, when one did.
    public var signal: Int32?
    /// Everything written to stdout (and to stderr too, when the run merged them).
    public var stdoutData: Data
    /// Everything written to stderr (empty when merged into stdout).
    public var stderrData: Data

    /// stdout as text.
    public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    /// stderr as text.
    public var stderr: String { String(decoding: stderrData, as: UTF8.self) }
}

/// Runs a program to its end, for tests: the one way a test runs a tool (the built binaries, git, mbpoll, sqlite3,
/// curl, python3) and reads what it printed.
///
/// Both output pipes are read to their end on threads of their own while the program runs (`PipeDrain`), so a program
/// that fills one pipe while the test would be reading the other can never block; their read ends are closed at the
/// end of the stream. The program starts from a thread with an empty signal mask (a child of an async test would
/// otherwise inherit SIGTERM blocked), its stdin is `input` (through a file: a child that never reads it cannot block
/// the test) or /dev/null, and it is killed past `timeout`.
public enum ProgramRun {
    /// Runs `executable` with `arguments` (in `directory` when given); `environment` replaces the test's own when
    /// given. With `mergingStderr`, stderr goes to the stdout pipe (one stream, in the order written).
    public static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil,
        input: Data? = nil, mergingStderr: Bool = false, timeout: TimeInterval = 60
    ) throws(TestSupportError) -> ProgramOutput {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = mergingStderr ? nil : Pipe()
        process.standardOutput = out
        process.standardError = err ?? out
        var inputFile: (url: URL, handle: FileHandle)?
        if let input {
            let url = TestPaths.temporaryFile(UUID().uuidString, prefix: "lastset-input")
            do {
                try input.write(to: url)
                inputFile = (url, try FileHandle(forReadingFrom: url))
            } catch {
                throw TestSupportError("cannot write the input of \(executable.lastPathComponent): \(error)")
            }
        }
        process.standardInput = inputFile?.handle ?? FileHandle.nullDevice
        // The input's descriptor is this process's to close (Process closes only the pipes it was given).
        defer {
            if let inputFile {
                try? inputFile.handle.close()
                try? FileManager.default.removeItem(at: inputFile.url)
            }
        }
        try PeerProcess.runWithCleanSignalMask(process)
        let stdout = Collected()
        let stderr = Collected()
        let drains =
            [PipeDrain(out.fileHandleForReading, name: "\(executable.lastPathComponent) stdout") { stdout.append($0) }]
            + (err.map {
                [PipeDrain($0.fileHandleForReading, name: "\(executable.lastPathComponent) stderr") { stderr.append($0) }]
            } ?? [])
        let status = process.waitForExit(timeout: timeout)
        // A grandchild that kept the pipe open (a daemon the program started) must not hold the test: bounded.
        for drain in drains { drain.waitForEnd(timeout: 10) }
        let signal = !process.isRunning && process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
        return ProgramOutput(status: status, signal: signal, stdoutData: stdout.data, stderrData: stderr.data)
    }

    /// Runs the built executable `name` (`lastset`, `lastsetd`, …) of this package.
    public static func built(
        _ name: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil,
        mergingStderr: Bool = false, timeout: TimeInterval = 60
    ) throws(TestSupportError) -> ProgramOutput {
        try run(
            try TestPaths.executable(name), arguments, environment: environment, input: input, mergingStderr: mergingStderr,
            timeout: timeout)
    }

    /// Bytes gathered from a drain's thread.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes = Data()
        func append(_ chunk: Data) { lock.withLock { bytes.append(chunk) } }
        var data: Data { lock.withLock { bytes } }
    }
}
