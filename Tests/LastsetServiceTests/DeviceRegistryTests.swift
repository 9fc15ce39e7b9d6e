import Foundation
import LastsetCore
import LastsetEngine
import Synchronization
import XCTest

@testable import LastsetService

/// The per-device lock: one job at a time, polls skipped while a job holds the device, and a job
/// waiting for a poll in progress instead of interleaving with it.
final class DeviceRegistryTests: XCTestCase {
    private let config = try! CompiledConfig(
        LastsetConfig(
            devices: [
                DeviceConfig(id: "a", endpoint: "tcp://127.0.0.1:1502", unit: 1, pages: ["p"], poll: "1s", gateway: true),
                DeviceConfig(id: "b", endpoint: "tcp://127.0.0.1:1502", unit: 2, pages: ["p"], gateway: true),
            ],
            pages: [PageDefinition(id: "p", registers: [RegisterDefinition(registerId: "r", address: 0, type: .u16)])]))

    private static let machine = MachineKey.tcp(family: 4, address: "127.0.0.1", port: 1502)
    private var keyA: JobLock { JobLock(machine: Self.machine, unit: 1, gateway: true) }
    private var keyB: JobLock { JobLock(machine: Self.machine, unit: 2, gateway: true) }

    func testOneJobPerDeviceAndPollsPauseWhileAJobHoldsIt() async {
        let registry = DeviceRegistry(config: config)
        let first = await registry.acquire(keyA, for: .apply)
        let second = await registry.acquire(keyA, for: .apply)
        let other = await registry.acquire(keyB, for: .capture)
        XCTAssertEqual(first, .held)
        XCTAssertEqual(second, .busy(.apply), "two jobs on one device")
        XCTAssertEqual(other, .held, "another unit behind a gateway is another device")
        let pollWhileHeld = await registry.beginPoll(keyA)
        XCTAssertEqual(pollWhileHeld, .busy(.apply), "polled a device a job holds")
        let status = await registry.statuses()
        XCTAssertEqual(status.map { $0.busy }, [.apply, .capture])
        await registry.release(keyA)
        let pollAfter = await registry.beginPoll(keyA)
        XCTAssertEqual(pollAfter, .held)
        await registry.endPoll(keyA)
    }

    func testAJobWaitsForAPollInProgress() async {
        let registry = DeviceRegistry(config: config)
        let polling = await registry.beginPoll(keyA)
        XCTAssertEqual(polling, .held)
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
        XCTAssertEqual(secondPoll, .busy(.capture), "a new poll started while a job waits for the device")
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

    /// Issue 19, defect 6: a plain TCP device answers every unit, so a job on another unit of the same machine
    /// (an ad-hoc `--unit 2`) would interleave its writes with the running one: the whole machine is held.
    func testAPlainTCPMachineIsHeldWholeWhateverTheUnit() async {
        let registry = DeviceRegistry(config: config)
        let plain1 = JobLock(machine: Self.machine, unit: 1, gateway: false)
        let plain2 = JobLock(machine: Self.machine, unit: 2, gateway: false)
        let first = await registry.acquire(plain1, for: .apply)
        let second = await registry.acquire(plain2, for: .apply)
        let gatewayUnit = await registry.acquire(keyB, for: .capture)
        XCTAssertEqual(first, .held)
        XCTAssertEqual(second, .busy(.apply), "two jobs on one plain TCP machine through two unit ids")
        XCTAssertEqual(gatewayUnit, .busy(.apply), "a unit lock on a machine held whole")
        let holder = await registry.holder(keyB)
        XCTAssertEqual(holder, .apply)
        await registry.release(plain1)
        let afterRelease = await registry.acquire(keyB, for: .capture)
        XCTAssertEqual(afterRelease, .held)
        let whole = await registry.acquire(plain1, for: .apply)
        XCTAssertEqual(whole, .busy(.capture), "the whole machine taken while one unit of it is held")
    }

    /// Issue 19, defect 1: a resolve suspended across a reload (a device listing running while the config
    /// moves the device to another port) wrote the old machine back into the cache, and every later job for
    /// the device went to the machine it used to be. After a reload the device's target is always the new one.
    func testAResolveRacingAReloadNeverKeepsTheOldMachine() async throws {
        func config(port: Int) throws -> CompiledConfig {
            try CompiledConfig(
                LastsetConfig(
                    devices: [
                        DeviceConfig(id: "press-a", endpoint: "tcp://127.0.0.1:1601", unit: 1, pages: ["p"]),
                        DeviceConfig(id: "press-b", endpoint: "tcp://127.0.0.1:\(port)", unit: 1, pages: ["p"]),
                    ],
                    pages: [PageDefinition(id: "p", registers: [RegisterDefinition(registerId: "r", address: 0, type: .u16)])]))
        }
        let (before, after) = (try config(port: 1602), try config(port: 1603))
        let moved = MachineKey.tcp(family: 4, address: "127.0.0.1", port: 1603)
        var stale = 0
        for _ in 0..<100 {
            let registry = DeviceRegistry(config: before)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { _ = await registry.statuses() } }
                group.addTask { await registry.replace(config: after) }
                for _ in 0..<4 { group.addTask { _ = await registry.statuses() } }
            }
            let device = try XCTUnwrap(after.device("press-b"))
            let target: DeviceTarget? = await registry.target(for: device)
            if target?.machine != moved { stale += 1 }
        }
        XCTAssertEqual(stale, 0, "after a reload press-b's jobs went to the machine it used to be")
    }

    /// Issue 19, defect 7: a serial line keeps the settings it is open with while a job or poll holds any unit of it;
    /// an idle line takes the next job's settings, and the configured devices' settings are the only ones allowed.
    func testASerialLineIsNeverReopenedWithOtherSettingsWhileInUse() async {
        let registry = DeviceRegistry(config: config)
        let line = MachineKey.rtu(realPath: "/dev/ttyUSB7")
        let (unit1, unit2) = (JobLock(machine: line, unit: 1, gateway: false), JobLock(machine: line, unit: 2, gateway: false))
        let (s19200, s9600) = (LineSettings(baud: 19200), LineSettings(baud: 9600))
        let first = await registry.acquire(unit1, line: s19200, for: .apply)
        XCTAssertEqual(first, .held)
        let other = await registry.acquire(unit2, line: s9600, for: .apply)
        XCTAssertEqual(other, .refused(.inUse(line: line, requested: s9600, open: s19200)))
        let poll = await registry.beginPoll(unit2, line: s9600)
        XCTAssertEqual(poll, .refused(.inUse(line: line, requested: s9600, open: s19200)), "a poll reopened a line in use")
        let same = await registry.acquire(unit2, line: s19200, for: .capture)
        XCTAssertEqual(same, .held, "another unit at the line's settings")
        await registry.release(unit1)
        await registry.release(unit2)
        let declared = [LineAccess.Declaration(device: "press-x", settings: s19200)]
        let adHoc = await registry.acquire(unit2, line: s9600, declared: declared, for: .apply)
        XCTAssertEqual(adHoc, .refused(.configured(line: line, requested: s9600, device: "press-x", declared: s19200)))
        let idle = await registry.acquire(unit2, line: s9600, for: .apply)
        XCTAssertEqual(idle, .held, "an idle line no device declares takes the job's settings")
        let back = await registry.acquire(unit1, line: s19200, for: .apply)
        XCTAssertEqual(back, .refused(.inUse(line: line, requested: s19200, open: s9600)))
    }
}
