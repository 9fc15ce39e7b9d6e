import Foundation
import LastsetCore
import XCTest

/// When scheduled backups are due (`BackupSchedule`) and when a failing streak is recorded (`BackupStreak`).
final class BackupScheduleTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    func testDueTimes() {
        // After an attempt: one interval later, whatever it found.
        let last = start.addingTimeInterval(-600)
        XCTAssertEqual(
            BackupSchedule.due(device: "press", interval: .seconds(3600), lastAttempt: last, started: start),
            last.addingTimeInterval(3600))
        // Never backed up: within the interval, and within a minute of the start, at an offset of the device's own.
        for device in (0..<200).map({ "press-\($0)" }) {
            let hourly = BackupSchedule.due(device: device, interval: .seconds(3600), lastAttempt: nil, started: start)
            XCTAssertTrue(hourly >= start && hourly < start.addingTimeInterval(60), device)
            let quick = BackupSchedule.due(device: device, interval: .milliseconds(1500), lastAttempt: nil, started: start)
            XCTAssertTrue(quick >= start && quick < start.addingTimeInterval(1.5), device)
            XCTAssertEqual(quick, BackupSchedule.due(device: device, interval: .milliseconds(1500), lastAttempt: nil, started: start))
        }
        // The offsets spread: 200 devices do not all start in the same second.
        let seconds = Set((0..<200).map {
            Int(BackupSchedule.due(device: "press-\($0)", interval: .seconds(3600), lastAttempt: nil, started: start)
                .timeIntervalSince(start))
        })
        XCTAssertGreaterThan(seconds.count, 40)
        // A busy machine: tried again after 5 s, or sooner with a shorter interval.
        XCTAssertEqual(BackupSchedule.retryAfterBusy(at: start, interval: .seconds(3600)), start.addingTimeInterval(5))
        XCTAssertEqual(BackupSchedule.retryAfterBusy(at: start, interval: .seconds(2)), start.addingTimeInterval(2))
    }

    func testAFailingStreakIsRecordedWhenItBeginsAndLoggedWhenItEnds() {
        let table: [(String?, String?, BackupStreak)] = [
            (nil, nil, .none),
            (nil, "heating: timeout", .began("heating: timeout")),
            ("heating: timeout", "heating: refused", .none),
            ("heating: timeout", nil, .ended("heating: timeout")),
        ]
        for (previous, now, expected) in table {
            XCTAssertEqual(BackupStreak.of(previous: previous, now: now), expected, "\(String(describing: previous)) → \(String(describing: now))")
        }
    }
}
