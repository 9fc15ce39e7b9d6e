import Foundation

/// When each device's scheduled backup is due (pure; `BackupScheduleTests`). A device never backed up is first due
/// within its interval (at most a minute) after the start, at an offset of its own, so a thousand devices do not
/// all read at once; then one interval after its last attempt, whatever it found. An attempt refused because a
/// job or a poll held the machine is tried again after `retry`.
public enum BackupSchedule {
    /// How long a backup refused by a busy machine waits before it is tried again (at most its interval).
    public static let retry: Duration = .seconds(5)
    /// The spread of the first backups after a start.
    public static let firstSpread: Duration = .seconds(60)

    /// When the next attempt is due: `lastAttempt` + `interval`, or, with none, `started` + the device's offset.
    public static func due(device: String, interval: Duration, lastAttempt: Date?, started: Date) -> Date {
        if let lastAttempt { return lastAttempt.addingTimeInterval(seconds(interval)) }
        let spread = min(seconds(interval), seconds(firstSpread))
        return started.addingTimeInterval(spread * offset(device))
    }

    /// When an attempt refused at `time` (the machine busy) is tried again.
    public static func retryAfterBusy(at time: Date, interval: Duration) -> Date {
        time.addingTimeInterval(min(seconds(retry), seconds(interval)))
    }

    /// A fraction in [0, 1) of its own per device id (FNV-1a: the same on every run and host).
    static func offset(_ device: String) -> Double {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in device.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return Double(hash % 10_000) / 10_000
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}

/// How a device's failing streak of backups moves with one attempt: a failure is recorded (audited, warned) when a
/// streak begins, not at every attempt of it; its end is logged (pure; `BackupScheduleTests`).
public enum BackupStreak: Sendable, Hashable {
    /// Nothing to record: it still succeeds, or still fails.
    case none
    /// The first failure after a success (or of a device never backed up): record it.
    case began(String)
    /// A success after a failing streak: log it.
    case ended(String)

    /// The change from the previous attempt's failure (nil: it succeeded, or none) to this one's.
    public static func of(previous: String?, now: String?) -> BackupStreak {
        switch (previous, now) {
        case (nil, let failure?): return .began(failure)
        case (let failure?, nil): return .ended(failure)
        default: return .none
        }
    }
}
