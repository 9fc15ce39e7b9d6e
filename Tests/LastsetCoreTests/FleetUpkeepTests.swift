import Foundation
import LastsetCore
import XCTest

/// When a host packs its fleet repository: only after an idle sync; the loose objects once a day or past a bound;
/// every pack into one when they reach theirs.
final class FleetUpkeepTests: XCTestCase {
    func testTheDecisionFromATable() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let hour: TimeInterval = 3600
        func objects(_ loose: Int, _ looseMB: Int = 0, packs: Int = 1) -> FleetUpkeep.Objects {
            FleetUpkeep.Objects(loose: loose, looseBytes: looseMB << 20, packs: packs, packBytes: 1 << 20)
        }
        let cases: [(FleetUpkeep.Objects, idle: Bool, last: Date?, FleetUpkeep.Decision, line: UInt)] = [
            // Never while the fleet moves, however much is loose.
            (objects(50_000, 900, packs: 40), false, nil, .wait(.busy), #line),
            // Nothing to pack.
            (objects(0), true, nil, .wait(.packed), #line),
            (objects(0, packs: 0), true, nil, .wait(.packed), #line),
            (objects(0, packs: FleetUpkeep.packsBound - 1), true, nil, .wait(.packed), #line),
            // Never packed, or a day since: the loose objects into a pack.
            (objects(1), true, nil, .repack(.daily), #line),
            (objects(10, packs: 3), true, now - 25 * hour, .repack(.daily), #line),
            (objects(10), true, now - 24 * hour, .repack(.daily), #line),
            // Within the day: waits, unless past a bound.
            (objects(10), true, now - 23 * hour, .wait(.recent), #line),
            (objects(FleetUpkeep.looseBound - 1), true, now - hour, .wait(.recent), #line),
            (objects(FleetUpkeep.looseBound), true, now - hour, .repack(.loose), #line),
            (objects(5, 63), true, now - hour, .wait(.recent), #line),
            (objects(5, 64), true, now - hour, .repack(.loose), #line),
            // Packs past their bound: all into one, loose or not, packed today or not.
            (objects(0, packs: FleetUpkeep.packsBound), true, now - hour, .gc(.packs), #line),
            (objects(3000, packs: FleetUpkeep.packsBound + 4), true, nil, .gc(.packs), #line),
        ]
        for c in cases {
            XCTAssertEqual(FleetUpkeep.decide(c.0, idle: c.idle, lastPacked: c.last, now: now), c.3, line: c.line)
        }
    }

    func testAnIdleSyncEndedOkAndMovedNothing() {
        var report = SyncReport()
        XCTAssertTrue(FleetUpkeep.isIdle(report))
        let moved: [(inout SyncReport) -> Void] = [
            { $0.result = .offline }, { $0.result = .refused }, { $0.result = .failed }, { $0.commitsIn = 1 },
            { $0.commitsOut = 1 }, { $0.templatesIn = ["heating/line-a-1"] }, { $0.templatesOut = ["heating/line-b-1"] },
            { $0.auditRecordsOut = 2 }, { $0.auditRecordsIn = 3 },
        ]
        for change in moved {
            report = SyncReport()
            change(&report)
            XCTAssertFalse(FleetUpkeep.isIdle(report), "\(report)")
        }
    }

    func testCountObjectsIsRead() {
        let text = "count: 12\nsize: 48\nin-pack: 4000\npacks: 3\nsize-pack: 2048\nprune-packable: 0\ngarbage: 0\nsize-garbage: 0\n"
        XCTAssertEqual(
            FleetUpkeep.Objects(countObjects: text),
            FleetUpkeep.Objects(loose: 12, looseBytes: 48 * 1024, packs: 3, packBytes: 2048 * 1024))
        XCTAssertNil(FleetUpkeep.Objects(countObjects: "count: 12\n"))
    }
}
