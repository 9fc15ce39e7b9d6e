import Foundation
import Glibc
import LastsetSystem

/// Log severities, with their syslog priority numbers.
public enum LogLevel: Int32, Sendable, CaseIterable, CustomStringConvertible {
    /// Something failed; an operator should look (syslog 3).
    case error = 3
    /// Something unexpected that the daemon worked around (syslog 4).
    case warning = 4
    /// Normal operation milestones (syslog 6).
    case info = 6
    /// Detail for developers (syslog 7).
    case debug = 7

    /// "error", "warning", "info" or "debug".
    public var description: String {
        switch self {
        case .error: return "error"
        case .warning: return "warning"
        case .info: return "info"
        case .debug: return "debug"
        }
    }

    /// Parses "error", "warning", "info" or "debug" (any case).
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.description == name.lowercased() }) else { return nil }
        self = level
    }
}

/// How log lines are framed.
public enum LogFormat: Sendable, Equatable {
    /// `<N>label: message` — journald reads the priority and adds its own timestamp.
    case journal
    /// `2026-01-02T03:04:05.678Z warning label: message` for a terminal or a file.
    case plain

    /// `.journal` when `fileDescriptor` is the stream systemd named in JOURNAL_STREAM ("dev:inode"), else `.plain`.
    public static func detect(
        fileDescriptor: Int32 = 2, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> LogFormat {
        guard let stream = environment["JOURNAL_STREAM"] else { return .plain }
        let parts = stream.split(separator: ":")
        var info = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]),
            fstat(fileDescriptor, &info) == 0
        else { return .plain }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode ? .journal : .plain
    }
}

/// A small logger: whole lines to stderr (never stdout), each line in one write(2), so concurrent lines never interleave.
public struct Logger: Sendable {
    /// Names the component in every line, e.g. "lastsetd" or "api".
    public var label: String
    /// Messages less severe than this are dropped.
    public var level: LogLevel
    /// The line framing in use.
    public let format: LogFormat
    /// Where lines go (2, stderr, unless a test gives a pipe).
    public let fileDescriptor: Int32

    /// Creates a logger; the format is detected from JOURNAL_STREAM unless given.
    public init(label: String, level: LogLevel = .info, format: LogFormat? = nil, fileDescriptor: Int32 = 2) {
        self.label = label
        self.level = level
        self.fileDescriptor = fileDescriptor
        self.format = format ?? LogFormat.detect(fileDescriptor: fileDescriptor)
    }

    /// The same logger under another label (e.g. per device).
    public func labeled(_ label: String) -> Logger {
        var copy = self
        copy.label = label
        return copy
    }

    /// Logs at error level.
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    /// Logs at warning level.
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    /// Logs at info level.
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    /// Logs at debug level.
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }

    /// Logs `message` at `level` if the threshold lets it through.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level.rawValue <= self.level.rawValue else { return }
        write(Array(render(level, message(), at: Date()).utf8))
    }

    /// The exact text written for one message: every line of it prefixed, each ending in "\n".
    public func render(_ level: LogLevel, _ message: String, at date: Date) -> String {
        let prefix: String
        switch format {
        case .journal: prefix = "<\(level.rawValue)>\(label): "
        case .plain: prefix = "\(Self.timestamp(date)) \(level) \(label): "
        }
        var lines = message.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.count > 1, lines.last == "" { lines.removeLast() }
        return lines.map { prefix + $0 + "\n" }.joined()
    }

    private func write(_ bytes: [UInt8]) {
        // A failure is dropped: stderr is gone, nowhere left to report it.
        _ = FileDescriptorWrite.all(fileDescriptor, bytes)
    }

    /// UTC, millisecond precision, ISO 8601: "2026-01-02T03:04:05.678Z".
    static func timestamp(_ date: Date) -> String {
        let total = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var seconds = time_t(total.quotientAndRemainder(dividingBy: 1000).quotient - (total < 0 && total % 1000 != 0 ? 1 : 0))
        let milliseconds = Int(total - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))"
            + "T\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(milliseconds), 3))Z"
    }
}
