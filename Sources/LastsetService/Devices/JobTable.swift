import Foundation
import LastsetCore

/// What a job produced: its report.
struct JobOutcome: Sendable {
    var capture: CaptureReport?
    var replay: ReplayReport?
    var applyAll: ApplyAllReport? = nil
    var scan: ScanReport? = nil
    var asFound: AsFoundReport? = nil
}

/// Running and recent capture/replay jobs: their progress, their reports, and waiters for completion.
actor JobTable {
    private var jobs: [String: JobInfo] = [:]
    private var order: [String] = []
    private var tasks: [String: Task<Void, Never>] = [:]
    private var waiters: [String: [CheckedContinuation<JobInfo, Never>]] = [:]
    /// `drain`'s waiters, resumed when the last running job finishes (or when their wait is cancelled).
    private var emptyWaiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    private var counter = 0
    /// Finished jobs kept for `GET /v1/jobs`.
    private let keepFinished = 200
    /// Register lines (replay results, capture problems) the kept finished jobs may hold in all; older
    /// jobs beyond it are forgotten (a 10,000-register replay report is ≈ 2 MiB in memory). The newest
    /// finished job is always kept. The audit log keeps every job's registers.
    let keepRegisterLines: Int

    /// Hears each job's start, progress and end (`GET /v1/events`).
    let events: EventHub?

    /// A table keeping at most `keepRegisterLines` register lines in its finished jobs.
    init(keepRegisterLines: Int = 10_000, events: EventHub? = nil) {
        self.keepRegisterLines = keepRegisterLines
        self.events = events
    }

    private func announce(_ name: ServerEventName, _ job: JobInfo) {
        events?.publish(ServerEvent.of(job: job, name))
    }

    /// Register lines a finished job holds.
    static func registerLines(_ job: JobInfo) -> Int {
        (job.replay?.registers.count ?? 0) + (job.capture.map { $0.problems.count + $0.skipped.count } ?? 0)
            + (job.applyAll?.pages.reduce(0) { $0 + ($1.report?.registers.count ?? 0) } ?? 0)
    }

    /// Registers a job and runs `work` in a task; its outcome completes the registered job.
    func start(_ info: JobInfo, work: @escaping @Sendable (_ id: String) async -> JobOutcome) -> JobInfo {
        counter += 1
        var job = info
        job.id = "\(Int(Date().timeIntervalSince1970))-\(counter)"
        jobs[job.id] = job
        order.append(job.id)
        announce(.jobStarted, job)
        let id = job.id
        // Not a child of the daemon's service group, by design: a job outlives the request that started it, and one
        // still running at the shutdown deadline is left to the process's exit (its journal makes the next start
        // record it as interrupted) instead of holding the stop.
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
        announce(.jobProgress, job)
    }

    private func finish(_ id: String, _ outcome: JobOutcome) {
        guard var job = jobs[id] else { return }
        job.capture = outcome.capture
        job.replay = outcome.replay
        job.applyAll = outcome.applyAll
        job.scan = outcome.scan
        job.asFound = outcome.asFound
        job.state = .finished
        job.finishedAt = Date()
        jobs[id] = job
        announce(.jobFinished, job)
        tasks[id] = nil
        for w in waiters.removeValue(forKey: id) ?? [] { w.resume(returning: job) }
        if tasks.isEmpty {
            for w in emptyWaiters.values { w.resume() }
            emptyWaiters = [:]
        }
        let finished = order.filter { jobs[$0]?.state == .finished }
        // Newest first: keep up to 200 finished jobs and `keepRegisterLines` register lines.
        var lines = 0
        var dropped: Set<String> = []
        for (n, old) in finished.reversed().enumerated() {
            lines += jobs[old].map(Self.registerLines) ?? 0
            if n > 0 && old != id && (n >= keepFinished || lines > keepRegisterLines) {
                jobs[old] = nil
                dropped.insert(old)
            }
        }
        if !dropped.isEmpty { order.removeAll { dropped.contains($0) } }
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

    /// Waits for running jobs, at most `deadline`; returns how many are still running. Woken by the last job's
    /// end or by the deadline, whichever comes first (no polling).
    func drain(deadline: Duration) async -> Int {
        guard !tasks.isEmpty else { return 0 }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.untilNoneRuns() }
            group.addTask { try? await Task.sleep(for: deadline) }
            await group.next()
            group.cancelAll()
        }
        return tasks.count
    }

    /// Returns when no job runs, or when the calling task is cancelled.
    private func untilNoneRuns() async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                if tasks.isEmpty || Task.isCancelled { c.resume() } else { emptyWaiters[id] = c }
            }
        } onCancel: {
            // The cancellation handler is synchronous and may not touch the actor's state: it hands the removal over.
            Task { await self.stopWaiting(id) }
        }
    }

    private func stopWaiting(_ id: UUID) {
        emptyWaiters.removeValue(forKey: id)?.resume()
    }
}
