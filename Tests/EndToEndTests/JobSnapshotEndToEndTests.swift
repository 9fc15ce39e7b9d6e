import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// Issue 19: which machine a job holds and records its results under, against the real daemon and pymodbus.
final class JobSnapshotEndToEndTests: XCTestCase {

    private func config(a: Int, b: Int, gateway: Bool) -> String {
        """
        { version: 1,
          devices: [
            { id: "press-a", endpoint: "tcp://127.0.0.1:\(a)", unit: 1, pages: ["heating"] },
            { id: "press-b", endpoint: "tcp://127.0.0.1:\(b)", unit: 1, pages: ["heating"]\(gateway ? ", gateway: true" : ""),
              quirks: { writeFunction: "fc06", timeout: "2s" } },
          ],
        \(DaemonEndToEndTests.pages)
        }
        """
    }

    private func waitFinished(_ daemon: DaemonHarness, _ job: JobInfo) throws -> JobInfo? {
        let end = Date().addingTimeInterval(30)
        while Date() < end {
            let j = try daemon.decode(JobInfo.self, try daemon.api("GET", "/v1/jobs/\(job.id)"))
            if j.state == .finished { return j }
            usleep(20_000)
        }
        return nil
    }

    /// Defect 6: a plain TCP device answers every unit id, so `--to press-b` and `--to tcp://…same port… --unit 2`
    /// ran at once with their writes interleaved. The whole machine is held unless the device is a gateway.
    func testAPlainTCPDeviceIsOneJobAtATimeWhateverTheUnitAndAGatewayIsNot() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let b = try pymodbusPeer(DaemonEndToEndTests.blank, ["--delay-ms", "40"])
        for gateway in [false, true] {
            let daemon = try DaemonHarness(config: config(a: a.port!, b: b.port!, gateway: gateway))
            XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)
            let first = try daemon.api("POST", "/v1/pages/heating/apply", #"{"device":"press-b"}"#)
            XCTAssertEqual(first.status, 202, first.text)
            let job = try daemon.decode(JobInfo.self, first)
            let second = try daemon.api(
                "POST", "/v1/pages/heating/apply", "{\"endpoint\":\"tcp://127.0.0.1:\(b.port!)\",\"unit\":2,\"dryRun\":true}")
            if gateway {
                XCTAssertNotEqual(second.status, 409, "unit 2 behind a gateway is another device: \(second.text)")
            } else {
                XCTAssertEqual(second.status, 409, "a second job on a plain TCP machine through unit 2: \(second.text)")
                XCTAssertTrue(second.text.contains("device_busy"), second.text)
            }
            XCTAssertEqual(try waitFinished(daemon, job)?.replay?.status, .succeeded)
            if !gateway {
                // The device's side: one replay's frames, none from another job in between.
                XCTAssertEqual(try b.writes().map(\.address), [1536, 100, 101, 102, 103, 110, 111, 112, 113, 114, 115, 116, 117, 120, 2304])
            }
            XCTAssertEqual(daemon.stop(), 0)
        }
    }

    /// Defect 10: `apply --to tcp://localhost:P` (press-b's machine by another spelling) recorded its state under the
    /// spelling; press-b stayed at its old version. A target that resolves to a configured device is that device.
    func testAnotherSpellingOfAConfiguredMachineRecordsUnderTheDevice() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let b = try pymodbusPeer(DaemonEndToEndTests.blank)
        let daemon = try DaemonHarness(config: config(a: a.port!, b: b.port!, gateway: false))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)
        let dry = try daemon.api(
            "POST", "/v1/pages/heating/apply?wait=1", "{\"endpoint\":\"tcp://127.0.0.1:\(b.port!)\",\"unit\":1,\"dryRun\":true}")
        XCTAssertEqual(dry.status, 200, dry.text)
        XCTAssertEqual(try daemon.decode(JobInfo.self, dry).replay?.target, "press-b", dry.text)
        let r = try daemon.api(
            "POST", "/v1/pages/heating/apply?wait=1", "{\"endpoint\":\"tcp://localhost:\(b.port!)\",\"unit\":1}")
        XCTAssertEqual(r.status, 200, r.text)
        XCTAssertEqual(try daemon.decode(JobInfo.self, r).replay?.status, .succeeded)
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 100, count: 1), [2])
        let device = try daemon.decode(DeviceStatus.self, try daemon.api("GET", "/v1/devices/press-b"))
        XCTAssertEqual(device.applied?["heating"]?.version, 1, "press-b's applied state after a replay to its machine")
        let audit = try daemon.auditRecords().filter { $0.kind == .replay }
        XCTAssertEqual(audit.last?.device, "press-b")
        XCTAssertEqual(audit.last?.endpoint, "tcp://localhost:\(b.port!)", "the audit keeps the spelling used")
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// Defect 5: the dry run showed (and the confirmation named) heating v1; the write sent no version, so whatever was
    /// latest by then was written. A write carries the confirmed version; when the request resolves to another: 409
    /// `version_changed` and not a frame — for one page and for the whole machine.
    func testAWriteCarriesTheConfirmedVersionAndIsRefusedWhenTheLatestMovedOn() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let b = try pymodbusPeer(DaemonEndToEndTests.blank)
        let daemon = try DaemonHarness(config: config(a: a.port!, b: b.port!, gateway: false))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)
        let dry = try daemon.decode(
            JobInfo.self, try daemon.api("POST", "/v1/pages/heating/apply?wait=1", #"{"device":"press-b","dryRun":true}"#))
        XCTAssertEqual(dry.replay?.templateVersionId, "1")
        // Between the confirmation and the write another version becomes the latest (press-a's mode changed).
        try Mbpoll.writeHolding(port: a.port!, unit: 1, address: 100, values: [1])
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)
        let refused = try daemon.api("POST", "/v1/pages/heating/apply?wait=1", #"{"device":"press-b","expectVersion":"1"}"#)
        XCTAssertEqual(refused.status, 409, refused.text)
        XCTAssertTrue(refused.text.contains("version_changed") && refused.text.contains("v2"), refused.text)
        let all = try daemon.api(
            "POST", "/v1/devices/press-b/apply?wait=1", #"{"expectVersions":{"heating":"1"}}"#)
        XCTAssertEqual(all.status, 409, all.text)
        XCTAssertTrue(all.text.contains("version_changed"), all.text)
        XCTAssertEqual(try b.writes().count, 0, "a frame went out for a version nobody confirmed")
        // Confirmed what is written: it goes ahead.
        let written = try daemon.api("POST", "/v1/pages/heating/apply?wait=1", #"{"device":"press-b","expectVersion":"2"}"#)
        XCTAssertEqual(written.status, 200, written.text)
        let report = try daemon.decode(JobInfo.self, written).replay
        XCTAssertEqual(report?.status, .succeeded)
        XCTAssertEqual(report?.templateVersionId, "2")
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 100, count: 4), [1, UInt16(bitPattern: -150), 0xE240, 0x0001])
        XCTAssertEqual(daemon.stop(), 0)
    }
}
