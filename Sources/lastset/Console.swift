import Glibc
import LastsetSystem

/// Where the CLI writes: whole writes to stdout and stderr (no stdio buffering, so the order of the two is kept).
struct Console: Sendable {
    /// Whether stdout is a terminal (the progress bar is shown only then).
    let stdoutIsTerminal: Bool

    /// Reads `isatty` of the real stdout.
    init() { stdoutIsTerminal = isatty(STDOUT_FILENO) == 1 }

    /// Writes `text` and a newline to stdout.
    func out(_ text: String) { write(STDOUT_FILENO, Array((text + "\n").utf8)) }

    /// Writes bytes to stdout as they are.
    func outBytes(_ bytes: [UInt8]) { write(STDOUT_FILENO, bytes) }

    /// Writes `text` and a newline to stderr.
    func err(_ text: String) { write(STDERR_FILENO, Array((text + "\n").utf8)) }

    /// Redraws the progress line on stderr (carriage return, text, clear to end of line).
    func progress(_ line: String) { write(STDERR_FILENO, Array("\r\(line)\u{1B}[K".utf8)) }

    /// Removes the progress line from stderr.
    func clearProgress() { write(STDERR_FILENO, Array("\r\u{1B}[K".utf8)) }

    private func write(_ fd: Int32, _ bytes: [UInt8]) {
        // A failure is dropped: a closed pipe or full disk leaves nothing sensible to report it on.
        _ = FileDescriptorWrite.all(fd, bytes)
    }
}
