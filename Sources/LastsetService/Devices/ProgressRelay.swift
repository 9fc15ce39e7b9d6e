import LastsetCore
import Synchronization

/// Hands a running job's progress to the job table, the latest only: a replay reports progress after every write
/// request, and a task (and an actor hop) per report cost more than the report is worth. At most one task delivers
/// at a time, in order; reports that arrive while it runs are folded into the one it delivers next.
final class ProgressRelay: Sendable {
    private struct State {
        var latest: JobProgress?
        var delivering = false
    }
    private let state = Mutex(State())
    private let deliver: @Sendable (JobProgress) async -> Void

    /// A relay delivering with `deliver`.
    init(_ deliver: @escaping @Sendable (JobProgress) async -> Void) {
        self.deliver = deliver
    }

    /// Keeps `progress` as the latest; starts the delivering task unless one is running.
    func post(_ progress: JobProgress) {
        let start = state.withLock { s -> Bool in
            s.latest = progress
            defer { s.delivering = true }
            return !s.delivering
        }
        guard start else { return }
        Task {
            while let p = next() { await deliver(p) }
        }
    }

    /// The latest report not delivered yet; nil (and the task ends) when there is none.
    private func next() -> JobProgress? {
        state.withLock { s in
            guard let p = s.latest else {
                s.delivering = false
                return nil
            }
            s.latest = nil
            return p
        }
    }
}
