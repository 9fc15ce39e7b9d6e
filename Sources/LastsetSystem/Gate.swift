import Synchronization

/// A one-way gate: `wait` suspends until `open` is called (once, by anyone) or until the waiting task is cancelled.
public final class Gate: Sendable {
    private struct State: ~Copyable {
        var isOpen = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// A closed gate.
    public init() {}

    /// Whether `open` was called.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens the gate: every waiter, present and future, goes on.
    public func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume() }
    }

    /// Returns once the gate is open or the calling task is cancelled, whichever comes first.
    public func wait() async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let goOn = state.withLock { state in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiters[id] = waiter
                    return false
                }
                if goOn { waiter.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
