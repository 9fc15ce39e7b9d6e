import Foundation
import LastsetCore
import XCTest

@testable import LastsetService

/// The per-device lock: one job at a time, polls skipped while a job holds the device, and a job
/// waiting for a poll in progress instead of interleaving with it.
final class DeviceRegistryTests: XCTestCase {
    private let config = LastsetConfig(
        devices: [
            DeviceConfig(id: "a", endpoint: "tcp://127.0.0.1:1502", unit: 1, pages: ["p"], poll: "1s"),
            DeviceConfig(id: "b", endpoint: "tcp://127.0.0.1:1502", unit: 2, pages: ["p"]),
        ],
        pages: [PageDefinition(id: "p", registers: [RegisterDefinition(registerId: "r", address: 0, type: .u16)])])

    private var keyA: String { DeviceRegistry.lockKey(.tcp(host: "127.0.0.1", port: 1502), unit: 1) }
    private var keyB: String { DeviceRegistry.lockKey(.tcp(host: "127.0.0.1", port: 1502), unit: 2) }

    func testOneJobPerDeviceAndPollsPauseWhileAJobHoldsIt() async {
        let registry = DeviceRegistry(config: config)
        let first = await registry.acquire(keyA, for: "apply")
        let second = await registry.acquire(keyA, for: "apply")
        let other = await registry.acquire(keyB, for: "capture")
        XCTAssertTrue(first)
        XCTAssertFalse(second, "two jobs on one device")
        XCTAssertTrue(other, "another unit on the same connection is another device")
        let pollWhileHeld = await registry.beginPoll(keyA)
        XCTAssertFalse(pollWhileHeld, "polled a device a job holds")
        let status = await registry.statuses()
        XCTAssertEqual(status.map(\.busy), ["apply", "capture"])
        await registry.release(keyA)
        let pollAfter = await registry.beginPoll(keyA)
        XCTAssertTrue(pollAfter)
        await registry.endPoll(keyA)
    }

    func testAJobWaitsForAPollInProgress() async {
        let registry = DeviceRegistry(config: config)
        let polling = await registry.beginPoll(keyA)
        XCTAssertTrue(polling)
        let started = ContinuousClock.now
        let key = keyA
        let job = Task { await registry.acquire(key, for: "capture") }
        try? await Task.sleep(for: .milliseconds(150))
        await registry.endPoll(keyA)
        let acquired = await job.value
        XCTAssertTrue(acquired)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(150), "the job did not wait for the poll")
        let secondPoll = await registry.beginPoll(keyA)
        XCTAssertFalse(secondPoll, "a new poll started while the job holds the device")
    }

    func testReloadKeepsHealthOfDevicesThatStay() async {
        let registry = DeviceRegistry(config: config)
        await registry.recordFailure("a", error: "timeout")
        var next = config
        next.devices.removeLast()
        await registry.replace(config: next)
        let status = await registry.statuses()
        XCTAssertEqual(status.map(\.id), ["a"])
        XCTAssertEqual(status.first?.lastError, "timeout")
        XCTAssertEqual(status.first?.reachable, false)
    }
}
