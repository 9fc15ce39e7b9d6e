import Dispatch
import Synchronization

/// The watchdog's proof of life, decided inside the process: the HTTP server still has its listeners, and the
/// health `GET /v1/health` answers (the same function, reading the registry, the job table and the fleet) is
/// computed within the bound.
///
/// It used to be a `GET /v1/health` through the daemon's own Unix socket, so it needed a free connection slot: a
/// client holding the slots (slow connections of one user of the socket group) stopped the pings, and systemd
/// aborted the daemon about every `WatchdogSec` — killing any replay writing at that moment (issue 19, defect 15).
/// The listener's slots are now bounded per user and per request instead (`SocketConnectionLimits`,
/// `api.requestTimeout`); the watchdog tells systemd whether the daemon itself is stuck, not whether the API is busy.
struct SelfCheck: Sendable {
    /// The limit for the check (the watchdog interval: a slower answer counts as none).
    let timeout: Duration
    /// Whether the HTTP server's listeners are up.
    let serving: @Sendable () -> Bool
    /// The health the API answers.
    let health: @Sendable () async -> Void

    /// Whether the server is serving and the health was computed within the timeout. A check that overran is
    /// abandoned (its task finishes on its own), never waited for: so the two are unstructured tasks, not children,
    /// which the watchdog's loop would have to wait for — a stuck daemon is exactly the case it must report.
    func run() async -> Bool {
        guard serving() else { return false }
        let once = Once()
        let health = self.health
        let timeout = self.timeout
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Task {
                await health()
                if once.first() { continuation.resume(returning: true) }
            }
            Task {
                try? await Task.sleep(for: timeout)
                if once.first() { continuation.resume(returning: false) }
            }
        }
    }
}

/// True for the first caller only: the check's verdict is given once, by whichever of its two tasks ends first.
private final class Once: Sendable {
    private let taken = Mutex(false)

    func first() -> Bool {
        taken.withLock { t in
            defer { t = true }
            return !t
        }
    }
}
