import Dispatch

/// A serial executor over a private `DispatchQueue` (`DispatchSerialQueue` does not exist on Linux):
/// an actor using it runs every job on that queue, so blocking libmodbus calls never occupy the
/// cooperative pool. Also used by the fleet (git processes).
public final class DispatchQueueExecutor: SerialExecutor {
    /// The queue every job runs on.
    public let queue: DispatchQueue

    /// An executor over a new serial queue named `label`.
    public init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs the job on the queue.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// This executor, unowned.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Traps unless called on the queue.
    public func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
