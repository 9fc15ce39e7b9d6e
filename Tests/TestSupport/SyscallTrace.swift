import Foundation

/// The system calls of a process and all its threads as `strace -f -ttt -o FILE` wrote them, parsed: how many
/// fsyncs a commit costs, and whether a line was printed before or after one.
public struct SyscallTrace: Sendable {
    /// One line of the trace: a whole call, the start of one another thread interrupted (`<unfinished ...>`),
    /// or its end (`<... name resumed>`).
    public struct Event: Sendable, Hashable {
        /// The thread.
        public var tid: Int
        /// Seconds since 1970 (strace's -ttt).
        public var time: Double
        /// The call's name (`fdatasync`, `write`).
        public var name: String
        /// Whether the line begins the call (a whole call or its unfinished start).
        public var begins: Bool
        /// Whether the line ends the call (a whole call or its resumption): the return value is on it.
        public var ends: Bool
        /// The line as strace wrote it, after the thread and time.
        public var text: String
    }

    /// Every call line, in the trace's order.
    public let events: [Event]

    /// The argument list that runs `command` under strace, tracing `calls` of every thread into `output`.
    public static func command(_ command: [String], tracing calls: [String], into output: URL) -> [String] {
        ["-f", "-ttt", "-s", "64", "-e", "trace=" + calls.joined(separator: ","), "-o", output.path] + command
    }

    /// `/usr/bin/strace`; throws when strace is not installed (scripts/setup.sh installs it).
    public static func executable() throws(TestSupportError) -> URL {
        let url = URL(fileURLWithPath: "/usr/bin/strace")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw TestSupportError("strace is not installed (scripts/setup.sh installs it)")
        }
        return url
    }

    /// Parses a trace file.
    public init(file: URL) throws {
        let text = try String(contentsOf: file, encoding: .utf8)
        var events: [Event] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard fields.count == 3, let tid = Int(fields[0]), let time = Double(fields[1]) else { continue }
            let rest = String(fields[2])
            if rest.hasPrefix("<... ") {
                let name = rest.dropFirst(5).prefix { $0 != " " }
                events.append(Event(tid: tid, time: time, name: String(name), begins: false, ends: true, text: rest))
            } else if let paren = rest.firstIndex(of: "("), !rest.hasPrefix("---"), !rest.hasPrefix("+++") {
                let unfinished = rest.hasSuffix("<unfinished ...>")
                events.append(
                    Event(
                        tid: tid, time: time, name: String(rest[..<paren]), begins: true, ends: !unfinished, text: rest))
            }
        }
        self.events = events
    }

    /// Calls named one of `names` begun at or after `start` and before `end` (seconds since 1970).
    public func calls(_ names: Set<String>, from start: Double, to end: Double) -> [Event] {
        events.filter { $0.begins && names.contains($0.name) && $0.time >= start && $0.time < end }
    }

    /// The index of the first `write` of `text` (a line the traced program printed), or nil.
    public func indexOfWrite(containing text: String) -> Int? {
        events.firstIndex { $0.name == "write" && $0.begins && $0.text.contains(text) }
    }

    /// Calls named one of `names` begun between the events at `from` and `to` (indices into `events`).
    public func calls(_ names: Set<String>, between from: Int, and to: Int) -> [Event] {
        guard from < to else { return [] }
        return events[(from + 1)..<to].filter { $0.begins && names.contains($0.name) }
    }

    /// The fsync family, as SQLite and the file stores call it.
    public static let syncCalls: Set<String> = ["fsync", "fdatasync", "sync_file_range", "syncfs"]
}
