import Synchronization
import XCTest

@testable import LastsetSystem

/// What the probe services did, in order.
private final class Journal: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

private struct ProbeError: Error, Equatable, CustomStringConvertible {
    let text: String
    var description: String { text }
}

/// A service that writes what happens to it in the journal; it can refuse to start, fail or return on its own once
/// `endOn` opens, run its wait as a loop under `runUntilStopped`, and hold its stop until `holdStopUntil` opens (a wait
/// only its task's cancellation also ends).
private struct Probe: Service {
    let name: String
    let journal: Journal
    var refuseStart: ProbeError?
    var failOn: (gate: Gate, error: ProbeError)?
    var endOn: Gate?
    var loops = false
    var holdStopUntil: Gate?
    var onStopped: Gate?

    func start() async throws {
        if let refuseStart {
            journal.add("\(name) refused to start")
            throw refuseStart
        }
        journal.add("\(name) started")
    }

    func run() async throws {
        if let endOn {
            await endOn.wait()
            journal.add("\(name) returned")
            return
        } else if let failOn {
            await failOn.gate.wait()
            journal.add("\(name) failed")
            throw failOn.error
        } else if loops {
            let (journal, name) = (self.journal, self.name)
            await ServiceGroup.runUntilStopped {
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
                journal.add("\(name) loop cancelled")
            }
        } else {
            await ServiceGroup.untilStopped()
        }
        // The clean-up runs in a task that is not cancelled: it may wait for what it closes.
        journal.add("\(name) stopping" + (Task.isCancelled ? " (cancelled)" : ""))
        if let holdStopUntil {
            await holdStopUntil.wait()
            journal.add("\(name) stopped" + (Task.isCancelled ? " when cancelled" : ""))
        } else {
            journal.add("\(name) stopped")
        }
        onStopped?.open()
    }
}

/// A notice recorder.
private final class Notices: Sendable {
    private let seen = Mutex<[ServiceGroup.Notice]>([])
    var all: [ServiceGroup.Notice] { seen.withLock { $0 } }
    var record: @Sendable (ServiceGroup.Notice) -> Void { { notice in self.seen.withLock { $0.append(notice) } } }
}

final class ServiceGroupTests: XCTestCase {
    func testStartsInOrderAndStopsInReverseOnRequest() async throws {
        let journal = Journal()
        let notices = Notices()
        let group = ServiceGroup(
            [
                Probe(name: "a", journal: journal), Probe(name: "b", journal: journal, loops: true),
                Probe(name: "c", journal: journal),
            ], stopDeadline: .seconds(30), notice: notices.record)
        async let running: Void = group.run()
        try await waitFor { journal.all.count == 3 }
        XCTAssertEqual(journal.all, ["a started", "b started", "c started"])
        group.stop()
        try await running
        XCTAssertEqual(
            journal.all.dropFirst(3),
            ["c stopping", "c stopped", "b loop cancelled", "b stopping", "b stopped", "a stopping", "a stopped"])
        XCTAssertEqual(notices.all, [.stopping("c"), .stopping("b"), .stopping("a")])
    }

    func testEachStopWaitsForTheServiceStartedAfterIt() async throws {
        let journal = Journal()
        let release = Gate()
        let group = ServiceGroup(
            [Probe(name: "a", journal: journal), Probe(name: "b", journal: journal, holdStopUntil: release)],
            stopDeadline: .seconds(30))
        async let running: Void = group.run()
        try await waitFor { journal.all.count == 2 }
        group.stop()
        try await waitFor { journal.all.contains("b stopping") }
        // b holds its stop: a must not be asked yet.
        try await Task.sleep(for: .milliseconds(200))
        XCTAssertEqual(journal.all, ["a started", "b started", "b stopping"])
        release.open()
        try await running
        XCTAssertEqual(journal.all.dropFirst(3), ["b stopped", "a stopping", "a stopped"])
    }

    func testPastTheDeadlineTheRestStopAtOnceAndAreCancelled() async throws {
        let journal = Journal()
        let notices = Notices()
        let never = Gate()
        // b's stop waits for a gate nobody opens: only the deadline's cancellation ends it, and a is stopped then
        // without waiting for b.
        let group = ServiceGroup(
            [Probe(name: "a", journal: journal), Probe(name: "b", journal: journal, holdStopUntil: never)],
            stopDeadline: .milliseconds(300), notice: notices.record)
        async let running: Void = group.run()
        try await waitFor { journal.all.count == 2 }
        let began = ContinuousClock.now
        group.stop()
        try await running
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - began, .milliseconds(300))
        let stop = Array(journal.all.dropFirst(2))
        XCTAssertEqual(stop.first, "b stopping")
        XCTAssertTrue(stop.contains("b stopped when cancelled"), "\(stop)")
        let a = stop.filter { $0.hasPrefix("a ") }
        XCTAssertEqual(a.count, 2, "\(stop)")
        XCTAssertTrue(a.first?.hasPrefix("a stopping") ?? false, "\(stop)")
        XCTAssertEqual(a.last, "a stopped")
        XCTAssertEqual(notices.all, [.stopping("b"), .deadlinePassed(["b", "a"])])
    }

    func testAFailingServiceStopsTheOthersInReverseAndIsThrown() async throws {
        let journal = Journal()
        let fail = Gate()
        let broken = ProbeError(text: "line 7 unplugged")
        let group = ServiceGroup(
            [
                Probe(name: "a", journal: journal), Probe(name: "b", journal: journal, failOn: (fail, broken)),
                Probe(name: "c", journal: journal),
            ], stopDeadline: .seconds(30))
        async let running: Void = group.run()
        try await waitFor { journal.all.count == 3 }
        fail.open()
        do {
            try await running
            XCTFail("the group should throw b's error")
        } catch let error as ServiceGroupError {
            XCTAssertEqual(error.service, "b")
            XCTAssertEqual(error.phase, .run)
            XCTAssertEqual(error.underlying as? ProbeError, broken)
            XCTAssertEqual(error.description, "b failed: line 7 unplugged")
        }
        XCTAssertEqual(journal.all.dropFirst(3), ["b failed", "c stopping", "c stopped", "a stopping", "a stopped"])
    }

    func testAStartFailureStopsWhatStartedAndStartsNothingAfter() async throws {
        let journal = Journal()
        let refusal = ProbeError(text: "cannot bind \"/run/lastset/api.sock\": Address already in use")
        let group = ServiceGroup(
            [
                Probe(name: "a", journal: journal), Probe(name: "b", journal: journal),
                Probe(name: "listener", journal: journal, refuseStart: refusal), Probe(name: "d", journal: journal),
            ], stopDeadline: .seconds(30))
        do {
            try await group.run()
            XCTFail("the group should throw the listener's error")
        } catch let error as ServiceGroupError {
            XCTAssertEqual(error.service, "listener")
            XCTAssertEqual(error.phase, .start)
            XCTAssertEqual(error.description, refusal.text)
        }
        XCTAssertEqual(
            journal.all,
            [
                "a started", "b started", "listener refused to start", "b stopping", "b stopped", "a stopping",
                "a stopped",
            ])
    }

    func testAServiceThatReturnsStopsTheGroup() async throws {
        let journal = Journal()
        let notices = Notices()
        let signal = Gate()
        let group = ServiceGroup(
            [
                Probe(name: "a", journal: journal), Probe(name: "signals", journal: journal, endOn: signal),
                Probe(name: "c", journal: journal),
            ], stopDeadline: .seconds(30), notice: notices.record)
        async let running: Void = group.run()
        try await waitFor { journal.all.count == 3 }
        signal.open()
        try await running
        XCTAssertEqual(journal.all.dropFirst(3), ["signals returned", "c stopping", "c stopped", "a stopping", "a stopped"])
        XCTAssertEqual(notices.all, [.ended("signals"), .stopping("c"), .stopping("a")])
    }

    func testCancellingTheGroupsTaskStopsEveryService() async throws {
        let journal = Journal()
        let group = ServiceGroup(["a", "b"].map { Probe(name: $0, journal: journal) }, stopDeadline: .seconds(30))
        let task = Task { try await group.run() }
        try await waitFor { journal.all.count == 2 }
        task.cancel()
        try await task.value
        XCTAssertEqual(
            Set(journal.all.dropFirst(2)), ["a stopping (cancelled)", "a stopped", "b stopping (cancelled)", "b stopped"])
    }

    func testStartStopServiceRunsItsStepsInTheGroup() async throws {
        let journal = Journal()
        let group = ServiceGroup(
            [
                StartStopService(name: "records", stop: { journal.add("records closed") }),
                StartStopService(
                    name: "listener", start: { journal.add("listener bound") }, stop: { journal.add("listener closed") }),
            ], stopDeadline: .seconds(30))
        async let running: Void = group.run()
        try await waitFor { journal.all.count == 1 }
        group.stop()
        try await running
        XCTAssertEqual(journal.all, ["listener bound", "listener closed", "records closed"])
    }

    func testGateWaitEndsWhenOpenedOrCancelled() async throws {
        let gate = Gate()
        let waiter = Task { await gate.wait() }
        gate.open()
        await waiter.value
        XCTAssertTrue(gate.isOpen)
        await gate.wait()  // an open gate never holds anyone

        let closed = Gate()
        let cancelled = Task { await closed.wait() }
        cancelled.cancel()
        await cancelled.value
        XCTAssertFalse(closed.isOpen)
        let stopped = Task { await ServiceGroup.untilStopped() }
        stopped.cancel()
        await stopped.value
    }

    /// Polls `condition` (a test-side wait on what the services wrote, bounded at 10 s).
    private func waitFor(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw ProbeError(text: "timed out") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
