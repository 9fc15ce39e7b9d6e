import LastsetCore
import XCTest

/// The job lock's one decision: which two jobs may run at once on one machine.
final class JobLockTests: XCTestCase {
    func testWhichLocksConflict() {
        let tcp = MachineKey.tcp(family: 4, address: "127.0.0.1", port: 1502)
        let other = MachineKey.tcp(family: 4, address: "127.0.0.1", port: 1503)
        let line = MachineKey.rtu(realPath: "/dev/ttyUSB0")
        let cases: [(JobLock, JobLock, Bool, String)] = [
            (JobLock(machine: tcp, unit: 1, gateway: false), JobLock(machine: tcp, unit: 2, gateway: false), true, "plain TCP, two units"),
            (JobLock(machine: tcp, unit: 1, gateway: false), JobLock(machine: tcp, unit: 2, gateway: true), true, "whole vs a unit"),
            (JobLock(machine: tcp, unit: 1, gateway: true), JobLock(machine: tcp, unit: 2, gateway: true), false, "gateway, two units"),
            (JobLock(machine: tcp, unit: 1, gateway: true), JobLock(machine: tcp, unit: 1, gateway: true), true, "gateway, one unit"),
            (JobLock(machine: line, unit: 3, gateway: false), JobLock(machine: line, unit: 17, gateway: false), false, "serial line, two units"),
            (JobLock(machine: line, unit: 3, gateway: false), JobLock(machine: line, unit: 3, gateway: false), true, "serial line, one unit"),
            (JobLock(machine: tcp, unit: 1, gateway: false), JobLock(machine: other, unit: 1, gateway: false), false, "two machines"),
            (JobLock(wholeMachine: line), JobLock(machine: line, unit: 17, gateway: false), true, "a scan of the line, a unit on it"),
            (JobLock(wholeMachine: tcp), JobLock(machine: tcp, unit: 1, gateway: true), true, "a scan of a gateway, a unit behind it"),
            (JobLock(wholeMachine: line), JobLock(wholeMachine: MachineKey.rtu(realPath: "/dev/ttyUSB1")), false, "scans of two lines"),
        ]
        for (a, b, conflict, name) in cases {
            XCTAssertEqual(a.conflicts(with: b), conflict, name)
            XCTAssertEqual(b.conflicts(with: a), conflict, "\(name) (reversed)")
        }
        XCTAssertEqual(JobLock(machine: tcp, unit: 2, gateway: false).unit, nil)
        XCTAssertEqual(JobLock(machine: line, unit: 2, gateway: false).description, "rtu /dev/ttyUSB0 unit 2")
        XCTAssertNil(JobLock(wholeMachine: line).unit)
    }
}
