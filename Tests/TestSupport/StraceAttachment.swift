import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// strace attached to every thread of a running process (`strace -f -p`, threads it starts later included),
/// writing the calls asked for with wall-clock times: what a daemon's job costs in fsyncs, counted between two
/// instants of the test.
public final class StraceAttachment: @unchecked Sendable {
    private let process = Process()
    private let output: URL
    private let errors = Pipe()
    private let collected = PipeBytes()
    private var drain: PipeDrain?

    /// Attaches to `pid` and returns once strace says it is attached to every thread.
    public init(pid: Int32, calls: Set<String> = SyscallTrace.syncCalls, into output: URL) throws {
        self.output = output
        process.executableURL = try SyscallTrace.executable()
        process.arguments = [
            "-f", "-ttt", "-s", "64", "-e", "trace=" + calls.sorted().joined(separator: ","), "-o", output.path, "-p",
            String(pid),
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        let sink = collected
        try process.run()
        drain = PipeDrain(errors.fileHandleForReading, name: "strace stderr") { sink.append($0) }
        // "strace: Process N attached with T threads" once every thread of the group is attached.
        let deadline = Date().addingTimeInterval(10)
        while !String(decoding: collected.value, as: UTF8.self).contains("attached") {
            guard process.isRunning, Date() < deadline else {
                throw TestSupportError(
                    "strace did not attach to pid \(pid): \(String(decoding: collected.value, as: UTF8.self))")
            }
            usleep(2_000)
        }
    }

    /// Detaches (SIGINT) and returns the trace.
    public func finish() throws -> SyscallTrace {
        if process.isRunning { kill(process.processIdentifier, SIGINT) }
        process.waitUntilExit()
        drain?.waitForEnd(timeout: 5)
        return try SyscallTrace(file: output)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
        }
    }
}

/// Bytes appended from a pipe's reader thread.
private final class PipeBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func append(_ d: Data) { lock.withLock { data.append(d) } }
    var value: Data { lock.withLock { data } }
}
