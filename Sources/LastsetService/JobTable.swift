import Foundation
import LastsetCore

/// What a job produced: its report.
struct JobOutcome: Sendable {
    var capture: CaptureReport?
    var replay: ReplayReport?
    var applyAll: ApplyAllReport? = nil
}

/// Running and recent capture/replay jobs: their progress, their reports, and waiters for completion.
actor JobTable {
    private var jobs: [String: JobInfo] = [:]
    private var order: [String] = []
    private var tasks: [String: Task<Void, Never>] = [:]
    private var waiters: [String: [CheckedContinuation<JobInfo, Never>]] = [:]
    private var counter = 0
    /// Finished jobs kept for `GET /v1/jobs`.
    private let keepFinished = 200

    /// Registers a job and runs `work` in a task; its outcome completes the registered job.
    func start(_ info: JobInfo, work: @escaping @Sendable (_ id: String) async -> JobOutcome) -> JobInfo {
        counter += 1
        var job = info
        job.id = "\(Int(Date().timeIntervalSince1970))-\(counter)"
        jobs[job.id] = job
        order.append(job.id)
        let id = job.id
        tasks[id] = Task {
            let done = await work(id)
            self.finish(id, done)
        }
        return job
    }

    /// Updates a running job's progress.
    func update(_ id: String, progress: JobProgress) {
        guard var job = jobs[id], job.state == .running else { return }
        job.progress = progress
        jobs[id] = job
    }

    private func finish(_ id: String, _ outcome: JobOutcome) {
        guard var job = jobs[id] else { return }
        job.capture = outcome.capture
        job.replay = outcome.replay
        job.applyAll = outcome.applyAll
        job.state = .finished
        job.finishedAt = Date()
        jobs[id] = job
        tasks[id] = nil
        for w in waiters.removeValue(forKey: id) ?? [] { w.resume(returning: job) }
        let finished = order.filter { jobs[$0]?.state == .finished }
        if finished.count > keepFinished {
            for old in finished.prefix(finished.count - keepFinished) {
                jobs[old] = nil
                order.removeAll { $0 == old }
            }
        }
        // The job's transient buffers (template file, journal, report encoding) are freed by now;
        // without this a daemon that once replayed 10,000 registers kept tens of MiB it no longer used.
        MallocTuning.trim()
    }

    func get(_ id: String) -> JobInfo? { jobs[id] }

    /// Newest first.
    func list() -> [JobInfo] { order.reversed().compactMap { jobs[$0] } }

    var runningCount: Int { tasks.count }

    /// Waits until the job finishes.
    func wait(_ id: String) async -> JobInfo? {
        guard let job = jobs[id] else { return nil }
        if job.state == .finished { return job }
        return await withCheckedContinuation { waiters[id, default: []].append($0) }
    }

    /// Asks every running job to stop at its next clean point (replays stop between write requests).
    func cancelAll() {
        for t in tasks.values { t.cancel() }
    }

    /// Waits for running jobs, at most `deadline`; returns how many are still running.
    func drain(deadline: Duration) async -> Int {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: deadline)
        while !tasks.isEmpty && clock.now < end {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return tasks.count
    }
}
