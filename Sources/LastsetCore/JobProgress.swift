/// Progress of a running capture or replay, for progress bars.
public struct JobProgress: Codable, Sendable, Hashable {
    /// e.g. "reading", "checking identity", "writing", "verifying", "rolling back".
    public var phase: String
    public var done: Int
    public var total: Int

    public init(phase: String, done: Int, total: Int) {
        self.phase = phase
        self.done = done
        self.total = total
    }
}

/// Receives progress updates; called from the job's task.
public typealias ProgressHandler = @Sendable (JobProgress) -> Void
