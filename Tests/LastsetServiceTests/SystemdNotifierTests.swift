import Foundation
import Glibc
import LastsetService
import LastsetSystem
import TestSupport
import XCTest

final class SystemdNotifierTests: XCTestCase {
    func testLifecycleMessagesArriveOnPathSocket() throws {
        let directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-http")
        defer { TestPaths.remove(directory) }
        let receiver = try NotifyReceiver(path: directory + "/notify")
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.path])
        XCTAssertTrue(notifier.isEnabled)

        try notifier.ready()
        XCTAssertEqual(receiver.receive(), "READY=1")
        try notifier.watchdog()
        XCTAssertEqual(receiver.receive(), "WATCHDOG=1")
        try notifier.status("serving 3 devices\non 1 line")
        XCTAssertEqual(receiver.receive(), "STATUS=serving 3 devices on 1 line")
        try notifier.reloading()
        let reload = receiver.receive()
        XCTAssertTrue(reload.hasPrefix("RELOADING=1\nMONOTONIC_USEC="), reload)
        XCTAssertNotNil(UInt64(reload.split(separator: "=").last ?? ""), reload)
        try notifier.stopping()
        XCTAssertEqual(receiver.receive(), "STOPPING=1")
    }

    func testAbstractSocketName() throws {
        let name = "@lastset-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let receiver = try NotifyReceiver(path: name)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": name])
        try notifier.ready()
        XCTAssertEqual(receiver.receive(), "READY=1")
    }

    func testWithoutNotifySocketEverythingIsANoOp() throws {
        let notifier = SystemdNotifier(environment: [:])
        XCTAssertFalse(notifier.isEnabled)
        XCTAssertNil(notifier.watchdogInterval)
        try notifier.ready()
        try notifier.watchdog()
        try notifier.stopping()
    }

    func testMissingReceiverIsAnErrorWithTheSocketNamed() throws {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/nonexistent/lastset/notify"])
        XCTAssertThrowsError(try notifier.ready()) { error in
            XCTAssertEqual("\(error)", "sd_notify to \"/nonexistent/lastset/notify\": sendto: No such file or directory")
        }
    }

    func testWatchdogIntervalIsHalfOfWatchdogUSecForThisProcess() {
        let mine = SystemdNotifier(environment: ["NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "30000000"])
        XCTAssertEqual(mine.watchdogInterval, .seconds(15))
        let pinned = SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid())"])
        XCTAssertEqual(pinned.watchdogInterval, .seconds(15))
        let other = SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid() + 1)"])
        XCTAssertNil(other.watchdogInterval)
        XCTAssertNil(SystemdNotifier(environment: ["WATCHDOG_USEC": "soon"]).watchdogInterval)
        XCTAssertNil(SystemdNotifier(environment: ["WATCHDOG_USEC": "0"]).watchdogInterval)
    }

    func testRunWatchdogPingsUntilCancelled() async throws {
        let directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-http")
        defer { TestPaths.remove(directory) }
        let receiver = try NotifyReceiver(path: directory + "/notify")
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.path, "WATCHDOG_USEC": "100000"])
        XCTAssertEqual(notifier.watchdogInterval, .milliseconds(50))
        let pinger = Task { await notifier.runWatchdog() }
        XCTAssertEqual(receiver.receive(), "WATCHDOG=1")
        XCTAssertEqual(receiver.receive(), "WATCHDOG=1")
        pinger.cancel()
        await pinger.value

        // Without a watchdog it returns at once.
        await SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.path]).runWatchdog()
    }
}
