import Foundation
import Glibc

/// CPU and memory figures of a running process, from /proc.
struct ProcStats {
    /// User + system CPU time consumed so far, in seconds.
    var cpuSeconds: Double
    /// Peak resident set size (VmHWM), in KiB.
    var peakRSSKiB: Int
    /// Current resident set size (VmRSS), in KiB.
    var rssKiB: Int
    /// Threads.
    var threads: Int
    /// Resident anonymous memory (RssAnon: the heap and stacks, what the process itself holds; the rest of
    /// its RSS is pages of shared libraries, shared with other processes and reclaimable), in KiB.
    var anonKiB: Int

    /// Reads /proc/PID/stat and /proc/PID/status.
    static func read(pid: Int32) throws -> ProcStats {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        else { throw BenchError("process \(pid) is gone: cannot read /proc/\(pid)") }
        // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
        guard let close = stat.lastIndex(of: ")") else { throw BenchError("unparsable /proc/\(pid)/stat: \"\(stat)\"") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let utime = Double(fields[11]), let stime = Double(fields[12]) else {
            throw BenchError("unparsable /proc/\(pid)/stat: \"\(stat)\"")
        }
        func kib(_ key: String) -> Int {
            for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
                return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
            }
            return 0
        }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ProcStats(
            cpuSeconds: (utime + stime) / ticks, peakRSSKiB: kib("VmHWM"), rssKiB: kib("VmRSS"), threads: kib("Threads"),
            anonKiB: kib("RssAnon"))
    }

    /// CPU time every thread of the process has run so far (the first field of each
    /// /proc/PID/task/TID/schedstat, in nanoseconds): exact where utime/stime count 10 ms ticks. A thread
    /// that ended between two readings is missing from the second; the processes measured here keep theirs.
    static func runtime(pid: Int32) -> Duration {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var ns: Int64 = 0
        for tid in tasks {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/schedstat", encoding: .utf8),
                let first = text.split(separator: " ").first, let v = Int64(first)
            else { continue }
            ns += v
        }
        return .nanoseconds(ns)
    }
}
