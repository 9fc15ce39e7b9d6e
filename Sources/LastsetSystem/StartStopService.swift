/// A service with nothing to run, only something to bring up and something to close: `start` runs when the group
/// starts it, `stop` when the group stops it (a listener, the device connections, the database).
public struct StartStopService: Service {
    /// Its name in the group's notices and errors.
    public let name: String
    private let onStart: @Sendable () async throws -> Void
    private let onStop: @Sendable () async -> Void

    /// A service that runs `start` when started and `stop` when stopped.
    public init(
        name: String, start: @escaping @Sendable () async throws -> Void = {}, stop: @escaping @Sendable () async -> Void
    ) {
        self.name = name
        self.onStart = start
        self.onStop = stop
    }

    /// Runs `start`.
    public func start() async throws { try await onStart() }

    /// Waits for the group's stop, then runs `stop`.
    public func run() async {
        await ServiceGroup.untilStopped()
        await onStop()
    }
}
