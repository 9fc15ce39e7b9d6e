/// A part of a long-running program (a listener, a poller, a signal handler) run by a `ServiceGroup`.
///
/// The group starts its services one after the other (`start`, then `run` as a child task) and stops them in reverse
/// order: a service's `ServiceGroup.untilStopped()` returns, and its clean-up is the code after that wait in `run`
/// (loops run under `ServiceGroup.runUntilStopped`, which cancels them at the stop).
public protocol Service: Sendable {
    /// The name the group's notices and errors give it ("HTTP listeners", "poller").
    var name: String { get }

    /// Brings the service up before the next one starts (binds a socket, installs a handler); throwing refuses the
    /// group's start: the services already started are stopped in reverse order and the group throws the error.
    func start() async throws

    /// Runs until the group stops it, then cleans up and returns; ends promptly once its task is cancelled (the
    /// group's deadline). Returning while not stopped
    /// stops the whole group (that is how the signal handler ends the program); throwing stops it with the error.
    func run() async throws
}

extension Service {
    /// Nothing to bring up: the service only runs.
    public func start() async throws {}
}
