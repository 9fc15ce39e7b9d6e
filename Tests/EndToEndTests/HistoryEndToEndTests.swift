import Foundation
import Glibc
import LastsetClient
import LastsetCore
import TestSupport
import XCTest
import LastsetFormats

/// Template history and whole-machine apply against real peers (pymodbus, mbpoll): an identical capture
/// makes no version, versions compare, promote and delete are audited (delete refused while a device holds
/// the version), and `apply --all` provisions every page in config order and stops at a page whose
/// identity differs.
final class HistoryEndToEndTests: XCTestCase {

    private func config(_ devices: [(String, Int)], pages: String = DaemonEndToEndTests.pages, list: String = "\"heating\"")
        -> String
    {
        let d = devices.map {
            "    { id: \"\($0.0)\", endpoint: \"tcp://127.0.0.1:\($0.1)\", unit: 1, pages: [\(list)] },"
        }.joined(separator: "\n")
        return "{ version: 1,\n  devices: [\n\(d)\n  ],\n\(pages)\n}\n"
    }

    private func versions(_ daemon: DaemonHarness) throws -> [String] {
        try daemon.decode([TemplateListing].self, try daemon.api("GET", "/v1/pages/heating/templates")).map(\.id)
    }

    func testIdenticalCaptureDiffPromoteAndDeleteAreAudited() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let b = try pymodbusPeer(DaemonEndToEndTests.blank)
        let daemon = try DaemonHarness(config: config([("press-a", a.port!), ("press-b", b.port!)]))

        XCTAssertEqual(try daemon.cli(["capture", "heating", "--from", "press-a"]).status, 0)
        let again = try daemon.cli(["capture", "heating", "--from", "press-a"])
        XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
        XCTAssertTrue(again.stdout.contains("capture of heating from press-a: unchanged, still v1"), again.stdout)
        XCTAssertEqual(try versions(daemon), ["1"])

        try Mbpoll.writeHolding(port: a.port!, unit: 1, address: 120, values: [20])
        XCTAssertEqual(try daemon.cli(["capture", "heating", "--from", "press-a"]).status, 0)
        XCTAssertEqual(try versions(daemon), ["2", "1"])

        let diff = try daemon.cli(["diff", "heating", "--version", "2", "--against", "1"])
        XCTAssertEqual(diff.status, 0, diff.stderr)
        XCTAssertTrue(
            diff.stdout.hasPrefix("heating: version 2 against version 1: 0 added, 0 removed, 1 changed, 4 unchanged"), diff.stdout
        )
        XCTAssertTrue(diff.stdout.contains("heating.hysteresis      120  changed  12  20"), diff.stdout)

        XCTAssertEqual(try daemon.cli(["apply", "heating", "--to", "press-b", "--version", "1"]).status, 0)
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 120, count: 1), [12])

        // press-b holds v1: deleting it is refused unless forced.
        let refused = try daemon.cli(["delete", "heating", "--version", "1"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(
            refused.stderr.contains("version 1 of page \"heating\" is what press-b is recorded as holding"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("(version_in_use)"), refused.stderr)

        let promote = try daemon.cli(["promote", "heating", "--version", "1"])
        XCTAssertEqual(promote.status, 0, promote.stderr)
        XCTAssertTrue(promote.stdout.contains("promoted heating version 1 as version 3"), promote.stdout)
        let v3 = try daemon.decode(Template.self, try daemon.api("GET", "/v1/pages/heating/templates/latest"))
        XCTAssertEqual(v3.version, 3)
        XCTAssertTrue(v3.provenance?.hasPrefix("promoted from version 1 (captured ") ?? false, v3.provenance ?? "nil")
        let v1 = try daemon.decode(Template.self, try daemon.api("GET", "/v1/pages/heating/templates/1"))
        XCTAssertEqual(v3.entries.map(\.valueData), v1.entries.map(\.valueData))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/templates/3/promote", "{}").status, 409)

        // Deleting the latest: v2 is the latest again, and the number 3 is never given again.
        let delete = try daemon.cli(["delete", "heating", "--version", "3"])
        XCTAssertEqual(delete.status, 0, delete.stderr)
        XCTAssertTrue(delete.stdout.contains("deleted heating version 3; latest is now v2"), delete.stdout)
        let same = try daemon.cli(["capture", "heating", "--from", "press-a"])
        XCTAssertTrue(same.stdout.contains("unchanged, still v2"), same.stdout)
        try Mbpoll.writeHolding(port: a.port!, unit: 1, address: 120, values: [30])
        XCTAssertEqual(try daemon.cli(["capture", "heating", "--from", "press-a"]).status, 0)
        XCTAssertEqual(try versions(daemon), ["4", "2", "1"])

        let forced = try daemon.cli(["delete", "heating", "--version", "1", "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertTrue(forced.stdout.contains("(forced: press-b recorded as holding it)"), forced.stdout)

        let audit = try daemon.auditRecords()
        XCTAssertEqual(
            audit.map { "\($0.kind.rawValue) \($0.result.rawValue) \($0.templateVersion.map(String.init) ?? "-")" },
            [
                "capture archived 1", "capture unchanged 1", "capture archived 2", "replay succeeded 1", "promote archived 3",
                "delete deleted 3", "capture unchanged 2", "capture archived 4", "delete deleted 1",
            ])
        XCTAssertEqual(audit[1].message, "unchanged, still version 1: nothing archived")
        XCTAssertEqual(audit[4].message, "promoted version 1 as version 3")
        XCTAssertEqual(audit[8].message, "deleted version 1 (forced: held by press-b)")
        XCTAssertTrue(audit.allSatisfy { $0.who.hasPrefix("uid:\(getuid())") })
        // Each change is one commit with its record (issue 20): no intent record is needed, none is left.
        let raw = try daemon.rawAuditRecords()
        XCTAssertEqual(raw.filter { [.promote, .delete].contains($0.kind) }.map(\.result), [.archived, .deleted, .deleted])
        XCTAssertEqual(daemon.stop(), 0)
    }

    static let threePages = """
          pages: [
            {
              id: "heating", title: "Heating",
              identity: [ { registerId: "model", address: 0, type: "string(8)" } ],
              beforeWrite: [ { address: 1536, value: 6868 } ],
              afterWrite: [ { address: 2304, value: 0 } ],
              registers: [
                { registerId: "heating.mode", address: 100, type: "u16", enum: [0, 1, 2] },
                { registerId: "heating.setpoint", address: 101, type: "s16", min: -200, max: 900, scale: 0.1, unit: "°C" },
              ],
            },
            {
              id: "motion", title: "Motion",
              identity: [ { registerId: "variant", address: 8, type: "u16" } ],
              registers: [
                { registerId: "motion.speed", address: 300, type: "u16" },
                { registerId: "motion.accel", address: 301, type: "u16" },
              ],
            },
            {
              id: "alarms",
              registers: [ { registerId: "alarms.limit", address: 400, type: "u16" } ],
            },
          ],
        """

    func testApplyAllProvisionsEveryPageInOrderAndStopsAtAnIdentityMismatch() throws {
        let model = DaemonEndToEndTests.text("PRS-200", bytes: 8)
        let a = try pymodbusPeer([0: model, 8: [1], 100: [2], 101: [UInt16(bitPattern: -150)], 300: [1450], 301: [300], 400: [75]])
        let blank: [Int: [UInt16]] = [
            0: model, 8: [1], 100: [0xFFFF], 101: [0x7FFF], 300: [0xFFFF], 301: [0xFFFF], 400: [0xFFFF],
        ]
        let b = try pymodbusPeer(blank)
        var other = blank
        other[8] = [2]
        let c = try pymodbusPeer(other)
        let daemon = try DaemonHarness(
            config: config(
                [("press-a", a.port!), ("press-b", b.port!), ("press-c", c.port!)], pages: Self.threePages,
                list: "\"heating\", \"motion\", \"alarms\""))
        for page in ["heating", "motion", "alarms"] {
            XCTAssertEqual(try daemon.cli(["capture", page, "--from", "press-a"]).status, 0, page)
        }

        let dry = try daemon.cli(["apply", "--all", "--to", "press-b", "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stdout + dry.stderr)
        XCTAssertTrue(dry.stdout.hasPrefix("dry run of every page on press-b: 3 of 3 pages planned"), dry.stdout)
        XCTAssertEqual(try b.writes().count, 0)

        let all = try daemon.cli(["apply", "--all", "--to", "press-b"])
        XCTAssertEqual(all.status, 0, all.stdout + all.stderr)
        XCTAssertTrue(all.stdout.hasPrefix("apply of every page on press-b: 3 of 3 pages succeeded"), all.stdout)
        XCTAssertEqual(try b.writes().map(\.address), [1536, 100, 2304, 300, 400])
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 100, count: 2), [2, UInt16(bitPattern: -150)])
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 300, count: 2), [1450, 300])
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 400, count: 1), [75])

        // press-c is another variant: heating goes on, motion is refused before any write, alarms not attempted.
        let stop = try daemon.cli(["--json", "apply", "--all", "--to", "press-c"])
        XCTAssertEqual(stop.status, 1, stop.stdout + stop.stderr)
        let job = try APICoding.decoder().decode(JobInfo.self, from: Data(stop.stdout.utf8))
        XCTAssertEqual(job.kind, .applyAll)
        let report = try XCTUnwrap(job.applyAll)
        XCTAssertEqual(report.pages.map(\.status), [.succeeded, .refused, .notAttempted])
        XCTAssertEqual(report.stoppedAt, "motion")
        XCTAssertTrue(report.pages[1].report?.reason?.contains("variant") ?? false, report.pages[1].report?.reason ?? "nil")
        XCTAssertEqual(try c.writes().map(\.address), [1536, 100, 2304])
        XCTAssertEqual(try Mbpoll.readHolding(port: c.port!, unit: 1, address: 300, count: 2), [0xFFFF, 0xFFFF])

        let audit = try daemon.auditRecords().filter { $0.device == "press-c" }
        XCTAssertEqual(audit.map { "\($0.pageId) \($0.result.rawValue)" }, ["heating succeeded", "motion refused"])
        let state = try daemon.decode(DeviceStatus.self, try daemon.api("GET", "/v1/devices/press-c"))
        XCTAssertEqual(state.applied?.keys.sorted(), ["heating"])

        // --continue goes on after the refused page.
        let cont = try daemon.cli(["--json", "apply", "--all", "--to", "press-c", "--continue"])
        let next = try APICoding.decoder().decode(JobInfo.self, from: Data(cont.stdout.utf8))
        XCTAssertEqual(next.applyAll?.pages.map(\.status), [.succeeded, .refused, .succeeded])
        XCTAssertNil(next.applyAll?.stoppedAt)
        XCTAssertEqual(try Mbpoll.readHolding(port: c.port!, unit: 1, address: 400, count: 1), [75])

        // The audit log answers questions: filters in the API and the CLI, one record in full.
        let refusedRecords = try daemon.decode(
            AuditPage.self, try daemon.api("GET", "/v1/audit?device=press-c&result=refused,failed&kind=replay"))
        XCTAssertEqual(refusedRecords.records.map(\.pageId), ["motion", "motion"])
        XCTAssertEqual(try daemon.api("GET", "/v1/audit?result=bogus").status, 400)
        let since = try XCTUnwrap(job.startedAt)
        let filtered = try daemon.cli(["audit", "--device", "press-c", "--page", "heating", "--since", TimeText.iso8601(since)])
        XCTAssertEqual(filtered.status, 0, filtered.stderr)
        XCTAssertEqual(filtered.stdout.split(separator: "\n").filter { $0.contains("press-c") }.count, 2, filtered.stdout)
        let heatingJob = try XCTUnwrap(
            report.pages[0].report.flatMap { _ in
                try? daemon.auditRecords().first { $0.device == "press-c" && $0.pageId == "heating" }?.job
            })
        let detail = try daemon.cli(["audit", "--job", String(heatingJob.prefix(8))])
        XCTAssertEqual(detail.status, 0, detail.stderr)
        XCTAssertTrue(detail.stdout.contains("REGISTER          STATUS    BEFORE"), detail.stdout)
        XCTAssertTrue(detail.stdout.contains("-15.0 °C"), "scaled with its unit: \(detail.stdout)")
        let raw = try daemon.cli(["--raw", "audit", "--job", heatingJob])
        XCTAssertTrue(raw.stdout.contains("-150") && !raw.stdout.contains("°C"), raw.stdout)

        // A page's definition.
        let definition = try daemon.cli(["pages", "heating"])
        XCTAssertEqual(definition.status, 0, definition.stderr)
        XCTAssertTrue(definition.stdout.hasPrefix("page heating (Heating): 2 registers, in write order"), definition.stdout)
        XCTAssertTrue(definition.stdout.contains("before writing: write 6868 to 1536"), definition.stdout)
        XCTAssertTrue(
            definition.stdout.contains("heating.setpoint      101  s16   rw      yes    -200…900      0.1    °C    -"),
            definition.stdout)
        XCTAssertEqual(daemon.stop(), 0)
    }
}
