import Foundation
import ModbusLink

/// `--log-frames` and `--control`: numbers and prints every request the slave receives, and holds one
/// write when told to (the slave's thread waits in `record`, so nothing else is served meanwhile).
/// Lines are written whole with one `write(2)` each, so a reader of a file or pipe never sees half a line.
final class FrameLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var sequence = 0
    private var holdCountdown: Int?
    private var holding = false
    private let printFrames: Bool

    /// A log that prints FRAME lines when `printFrames`, and only counts (for holds) otherwise.
    init(printFrames: Bool) {
        self.printFrames = printFrames
    }

    /// Called on the slave's thread for every request, before it is answered.
    func record(_ frame: SlaveFrame) {
        condition.lock()
        sequence += 1
        let n = sequence
        if printFrames { Simulator.emit("FRAME n=\(n) t=\(Self.now()) \(frame)") }
        if frame.isWrite, let countdown = holdCountdown {
            if countdown <= 1 {
                holdCountdown = nil
                holding = true
                Simulator.emit("HOLD n=\(n) t=\(Self.now())")
                while holding { condition.wait() }
            } else {
                holdCountdown = countdown - 1
            }
        }
        condition.unlock()
    }

    /// Holds the `n`-th write request from now (n ≥ 1).
    func hold(afterWrites n: Int) {
        condition.lock()
        holdCountdown = n
        condition.unlock()
    }

    /// Ends a hold (or cancels one not yet reached).
    func release() {
        condition.lock()
        holdCountdown = nil
        holding = false
        condition.broadcast()
        condition.unlock()
    }

    /// The sequence number of the last frame seen.
    var last: Int {
        condition.lock()
        defer { condition.unlock() }
        return sequence
    }

    /// Wall-clock seconds since 1970 with microseconds (the clock the daemon's timestamps use).
    static func now() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let micros = ts.tv_nsec / 1000
        return "\(ts.tv_sec)." + String(repeating: "0", count: 6 - String(micros).count) + String(micros)
    }
}
