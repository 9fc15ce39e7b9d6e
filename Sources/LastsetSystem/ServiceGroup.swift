/// Runs services as child tasks of one task group (the shape of swift-service-lifecycle's `ServiceGroup`, small):
/// started in order, each once the one before it is up; stopped in reverse order, each after the one started after
/// it has ended, under one deadline for the whole stop.
///
/// The group stops when `stop()` is called, when a service returns on its own (the signal handler, on SIGTERM), or
/// when a service throws (the group then throws that error, after stopping the others). Stopping a service does not
/// cancel its task: its `untilStopped()` returns (and the bodies it runs under `runUntilStopped` are cancelled), so its
/// clean-up can still wait for what it closes (a drain with its own deadline, a run in progress). When the stop
/// deadline passes, every service still running is stopped at once and its task cancelled, without waiting for the
/// others; the group still waits for each to end (they are its children), so a service must end once cancelled.
/// Cancelling the task that runs the group cancels every service at once, in no order.
public final class ServiceGroup: Sendable {
    /// What the group tells its owner while it stops (for the log).
    public enum Notice: Sendable, Equatable {
        /// The named service returned without being stopped: the group stops.
        case ended(String)
        /// The named service is asked to stop.
        case stopping(String)
        /// The stop deadline passed with these services still running (newest first); they are all stopped and
        /// cancelled now.
        case deadlinePassed([String])
    }

    private let services: [any Service]
    private let stopDeadline: Duration
    private let notice: @Sendable (Notice) -> Void
    private let stopRequest = Gate()

    /// A group of `services` in start order whose stop may take `stopDeadline` before every service still running is
    /// stopped at once; `notice` hears of each step of the stop.
    public init(
        _ services: [any Service], stopDeadline: Duration, notice: @escaping @Sendable (Notice) -> Void = { _ in }
    ) {
        self.services = services
        self.stopDeadline = stopDeadline
        self.notice = notice
    }

    /// Asks the group to stop its services (in reverse order); `run` returns when they have.
    public func stop() { stopRequest.open() }

    /// The stop gate of the service whose task (or child task) this is; nil outside a group.
    @TaskLocal private static var stopSignal: Gate?

    /// Suspends the calling service until the group stops it, or until its task is cancelled.
    public static func untilStopped() async { await (stopSignal ?? Gate()).wait() }

    /// Runs `body` (a loop of the calling service) until it returns or the group stops the service; then cancels it
    /// and waits for it to end.
    public static func runUntilStopped(_ body: @escaping @Sendable () async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await body() }
            group.addTask { await untilStopped() }
            await group.next()
            group.cancelAll()
        }
    }

    /// How a child task of the group ended.
    private enum Event: Sendable {
        /// Service `index` returned (or threw).
        case ended(Int, Result<Void, any Error>)
        /// `stop()` was called (or the group's task was cancelled).
        case stopRequested
        /// The stop deadline passed.
        case deadline
    }

    /// The services' start-order indices still running, and the per-service gates that stop and cancel them.
    private struct Running {
        var indices: Set<Int> = []
        let stops: [Gate]
        let cancels: [Gate]

        init(count: Int) {
            stops = (0..<count).map { _ in Gate() }
            cancels = (0..<count).map { _ in Gate() }
        }
    }

    /// Starts the services in order and runs them until the group stops; returns when every one has ended. Throws
    /// `ServiceGroupError` when a service failed to start or failed while running (the first such failure).
    public func run() async throws {
        let failure = await withTaskGroup(of: Event.self) { group -> ServiceGroupError? in
            group.addTask {
                await self.stopRequest.wait()
                return .stopRequested
            }
            var running = Running(count: services.count)
            var failure = await start(into: &group, &running)
            if failure == nil { failure = await untilFirstEnd(&group, &running) }
            let stopFailure = await stopInReverse(&group, &running)
            group.cancelAll()
            return failure ?? stopFailure
        }
        if let failure { throw failure }
    }

    /// Starts each service and adds its run as a child task, in order; the first start failure ends the starting.
    private func start(into group: inout TaskGroup<Event>, _ running: inout Running) async -> ServiceGroupError? {
        for (index, service) in services.enumerated() {
            guard !stopRequest.isOpen && !Task.isCancelled else { return nil }
            do {
                try await service.start()
            } catch {
                return ServiceGroupError(service: service.name, phase: .start, underlying: error)
            }
            let (stop, cancel) = (running.stops[index], running.cancels[index])
            group.addTask { .ended(index, await Self.run(service, stop: stop, cancel: cancel)) }
            running.indices.insert(index)
        }
        return nil
    }

    /// Waits for the first reason to stop: a stop request, or a service that returned or threw.
    private func untilFirstEnd(_ group: inout TaskGroup<Event>, _ running: inout Running) async -> ServiceGroupError? {
        while let event = await group.next() {
            switch event {
            case .stopRequested, .deadline:
                return nil
            case .ended(let index, .success):
                running.indices.remove(index)
                notice(.ended(services[index].name))
                return nil
            case .ended(let index, .failure(let error)):
                running.indices.remove(index)
                return ServiceGroupError(service: services[index].name, phase: .run, underlying: error)
            }
        }
        return nil
    }

    /// Stops the running services newest first, each once the one after it has ended; past the deadline, all the
    /// rest at once, their tasks cancelled. Returns the first failure a service threw while stopping.
    private func stopInReverse(_ group: inout TaskGroup<Event>, _ running: inout Running) async -> ServiceGroupError? {
        let deadline = stopDeadline
        group.addTask {
            try? await Task.sleep(for: deadline)
            return .deadline
        }
        var failure: ServiceGroupError?
        for index in running.indices.sorted().reversed() where running.indices.contains(index) {
            if !running.stops[index].isOpen {
                notice(.stopping(services[index].name))
                running.stops[index].open()
            }
            while running.indices.contains(index), let event = await group.next() {
                switch event {
                case .ended(let ended, let result):
                    running.indices.remove(ended)
                    if case .failure(let error) = result, failure == nil {
                        failure = ServiceGroupError(service: services[ended].name, phase: .run, underlying: error)
                    }
                case .deadline:
                    let late = running.indices.sorted().reversed()
                    notice(.deadlinePassed(late.map { services[$0].name }))
                    for other in late {
                        running.stops[other].open()
                        running.cancels[other].open()
                    }
                case .stopRequested:
                    continue
                }
            }
        }
        return failure
    }

    /// Runs one service, `stop` as its stop signal, until it returns; cancels it when `cancel` opens. A cancellation
    /// error thrown once stopped or cancelled is a clean end.
    private static func run(_ service: any Service, stop: Gate, cancel: Gate) async -> Result<Void, any Error> {
        await withTaskGroup(of: Result<Void, any Error>?.self) { inner in
            inner.addTask {
                do {
                    try await $stopSignal.withValue(stop) { try await service.run() }
                    return .success(())
                } catch is CancellationError where stop.isOpen || Task.isCancelled {
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            inner.addTask {
                await cancel.wait()
                return nil
            }
            var outcome: Result<Void, any Error> = .success(())
            while let next = await inner.next() {
                inner.cancelAll()
                if let next { outcome = next }
            }
            return outcome
        }
    }
}
