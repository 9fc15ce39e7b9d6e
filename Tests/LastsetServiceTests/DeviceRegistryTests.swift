import Foundation
import LastsetCore
import Synchronization
import XCTest

@testable import LastsetService

/// The per-device lock: one job at a time, polls skipped while a job holds the device, and a job
/// waiting for a poll in progress instead of interleaving with it.
final class DeviceRegistryTests: XCTestCase {
    private let config = try! CompiledConfig(
        LastsetConfig(
            devices: [
                DeviceConfig(id: "a", endpoint: "tcp://127.0.0.1:1502", unit: 1, pages: ["p"], poll: "1s"),
                DeviceConfig(id: "b", endpoint: "tcp://127.0.0.1:1502", unit: 2, pages: ["p"]),
            ],
            pages: [PageDefinition(id: "p", registers: [RegisterDefinition(registerId: "r", address: 0, type: .u16)])]))

    private var keyA: String { MachineKey.tcp(family: 4, address: "127.0.0.1", port: 1502).lockKey(unit: 1) }
    private var keyB: String { MachineKey.tcp(family: 4, address: "127.0.0.1", port: 1502).lockKey(unit: 2) }

    func testOneJobPerDeviceAndPollsPauseWhileAJobHoldsIt() async {
        let registry = DeviceRegistry(config: config)
        let first = await registry.acquire(keyA, for: .apply)
        let second = await registry.acquire(keyA, for: .apply)
        let other = await registry.acquire(keyB, for: .capture)
        XCTAssertTrue(first)
        XCTAssertFalse(second, "two jobs on one device")
        XCTAssertTrue(other, "another unit on the same connection is another device")
        let pollWhileHeld = await registry.beginPoll(keyA)
        XCTAssertFalse(pollWhileHeld, "polled a device a job holds")
        let status = await registry.statuses()
        XCTAssertEqual(status.map { $0.busy }, [.apply, .capture])
        await registry.release(keyA)
        let pollAfter = await registry.beginPoll(keyA)
        XCTAssertTrue(pollAfter)
        await registry.endPoll(keyA)
    }

    func testAJobWaitsForAPollInProgress() async {
        let registry = DeviceRegistry(config: config)
        let polling = await registry.beginPoll(keyA)
        XCTAssertTrue(polling)
        let pollEnded = Mutex(false)
        let key = keyA
        // The job records whether the poll had ended at the moment it got the device.
        let job = Task { () -> Bool in
            _ = await registry.acquire(key, for: .capture)
            return pollEnded.withLock { $0 }
        }
        // Readiness, not a sleep: the job has claimed the device and is waiting for the poll.
        while await registry.holder(keyA) == nil { await Task.yield() }
        let secondPoll = await registry.beginPoll(keyA)
        XCTAssertFalse(secondPoll, "a new poll started while a job waits for the device")
        pollEnded.withLock { $0 = true }
        await registry.endPoll(keyA)
        let endedFirst = await job.value
        XCTAssertTrue(endedFirst, "the job got the device while the poll was still in progress")
    }

    func testReloadKeepsHealthOfDevicesThatStay() async {
        let registry = DeviceRegistry(config: config)
        await registry.recordFailure("a", error: "timeout")
        var source = config.source
        source.devices.removeLast()
        await registry.replace(config: try! CompiledConfig(source))
        let status = await registry.statuses()
        XCTAssertEqual(status.map { $0.id }, ["a"])
        XCTAssertEqual(status.first?.lastError, "timeout")
        XCTAssertEqual(status.first?.reachable, false)
    }
}
