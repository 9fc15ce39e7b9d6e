import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Process {
    /// Waits (bounded) for the child to exit and returns its exit status (128 + signal when killed).
    ///
    /// Used instead of `waitUntilExit()`: on Linux that spins the current run loop until Foundation
    /// has reaped the child, and a test run was seen spinning there for good after Foundation missed
    /// the exit. Here the wait sleeps between checks; when the child has been a zombie for a while
    /// without Foundation noticing, it is reaped here. Past `timeout` the child is killed.
    @discardableResult
    public func waitForExit(timeout: TimeInterval = 60) -> Int32 {
        let pid = processIdentifier
        let deadline = Date().addingTimeInterval(timeout)
        var zombieSince: Date?
        while true {
            if !isRunning { return foundationStatus }
            if Self.isZombieOrGone(pid) {
                zombieSince = zombieSince ?? Date()
                if Date().timeIntervalSince(zombieSince!) > 1 {
                    var status: Int32 = 0
                    if waitpid(pid, &status, WNOHANG) == pid {
                        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
                    }
                    if !isRunning { return foundationStatus }
                    return -1
                }
            }
            if Date() > deadline {
                kill(pid, SIGKILL)
                return waitForExit(timeout: 5)
            }
            usleep(2_000)
        }
    }

    /// Foundation's status in the same form as ours: 128 + signal for a child killed by a signal.
    private var foundationStatus: Int32 {
        terminationReason == .uncaughtSignal ? 128 + terminationStatus : terminationStatus
    }

    private static func isZombieOrGone(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")")
        else {
            return true
        }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        return state == "Z" || state == "X"
    }
}
