import Foundation
import Glibc
import LastsetCore
import TestSupport
import XCTest

/// Shared page definitions over real SSH with three daemons: a host whose register map drifted is flagged with the
/// registers that differ, never writes another host's version to a machine (nothing reaches the machine: its frame
/// log and mbpoll), and writes it once it took the fleet's definition — an audited step that holds across a restart.
extension FleetEndToEndTests {
    func testAHostWhosePageDiffersNeverWritesAnotherHostsVersionUntilItTakesTheFleetsDefinition() throws {
        let (ssh, ref, blank, hosts) = try threeHostsOverSSH()
        defer { withExtendedLifetime((ssh, ref)) {} }
        let (a, b, c) = (hosts[0], hosts[1], hosts[2])
        defer { if testRun?.hasSucceeded == false { for h in hosts { print("----\n", h.stderr) } } }
        // line-c's map drifted: a smaller hysteresis limit, and no label register.
        let drifted = try String(contentsOf: c.configURL, encoding: .utf8)
            .replacingOccurrences(of: #"address: 120, type: "u16", max: 50"#, with: #"address: 120, type: "u16", max: 40"#)
            .replacingOccurrences(of: #"{ registerId: "heating.label", address: 110, type: "string(16)" },"#, with: "")
        try drifted.write(to: c.configURL, atomically: true, encoding: .utf8)
        XCTAssertEqual(try c.cli(["reload"]).status, 0)
        // Each reload's READY=1, taken now so that the restart below waits for its own.
        XCTAssertTrue(c.notify.wait(for: "READY=1", timeout: 5).found)

        XCTAssertEqual(try a.cli(["capture", "heating", "--from", "press-ref"]).status, 0)
        try Mbpoll.writeHolding(port: ref.port!, unit: 1, address: 120, values: [13])
        XCTAssertEqual(try a.cli(["capture", "heating", "--from", "press-ref"]).status, 0)
        XCTAssertEqual(try sync(a).result, .ok)
        for host in [b, c] { XCTAssertEqual(try sync(host).templatesIn, ["heating/line-a-1", "heating/line-a-2"]) }
        XCTAssertNil(try health(b).fleet?.differingPages, "line-b's page is line-a's")
        let difference = try XCTUnwrap(try health(c).fleet?.differingPages?.first)
        XCTAssertEqual(difference.host, "line-a")
        XCTAssertEqual(difference.version, "line-a-2")
        XCTAssertEqual(difference.fleetLatest, true)
        XCTAssertEqual(difference.applicable, false)
        XCTAssertEqual(
            difference.registers?.map(\.description), ["heating.hysteresis: max 40 → 50", "heating.label: only in the fleet's"])
        let status = try c.cli(["status"])
        XCTAssertTrue(status.stdout.contains("heating.hysteresis: max 40 → 50"), status.stdout)

        // Nothing of line-a's version reaches the machine: refused before the first frame.
        let framesBefore = try blank.writes().count
        let refused = try c.cli(["apply", "heating", "--to", "press-new"])
        XCTAssertEqual(refused.status, 1, refused.stdout)
        XCTAssertTrue(refused.stdout.contains("captured against another definition of page \"heating\""), refused.stdout)
        XCTAssertTrue(refused.stdout.contains("lastset fleet page heating --take"), refused.stdout)
        XCTAssertEqual(try blank.writes().count, framesBefore, "no frame reached the machine")
        XCTAssertEqual(try Mbpoll.readHolding(port: blank.port!, unit: 1, address: 100, count: 1), [0xFFFF])
        XCTAssertEqual(try Mbpoll.readHolding(port: blank.port!, unit: 1, address: 120, count: 1), [0xFFFF])
        // Nor by way of a promote of line-a's older version, whose copy would be line-c's own version.
        let promote = try c.cli(["promote", "heating", "--version", "line-a-1"])
        XCTAssertEqual(promote.status, 1, promote.stdout)
        XCTAssertTrue(promote.stderr.contains("invalid_template"), promote.stderr)
        XCTAssertTrue(promote.stderr.contains("captured against another definition"), promote.stderr)
        let versions = try c.cli(["--json", "templates", "heating"])
        XCTAssertEqual(versions.status, 0, versions.stderr)
        XCTAssertTrue(versions.stdout.contains("line-a-1"), versions.stdout)
        XCTAssertFalse(versions.stdout.contains("line-c-"), versions.stdout)

        let page = try c.cli(["fleet", "page", "heating"])
        XCTAssertEqual(page.status, 1, page.stdout)
        XCTAssertTrue(page.stdout.contains("register heating.hysteresis: max 40 → 50"), page.stdout)
        XCTAssertTrue(page.stdout.contains("register heating.label: only in the fleet's"), page.stdout)
        let stale = try c.cli(["fleet", "page", "heating", "--take", "--version", "line-b-9", "--reason", "x"])
        XCTAssertEqual(stale.status, 1)
        XCTAssertTrue(stale.stderr.contains("version_changed"), stale.stderr)

        let take = try c.cli(
            ["fleet", "page", "heating", "--take", "--version", "line-a-2", "--reason", "line-a's map is the plant's"])
        XCTAssertEqual(take.status, 0, take.stdout + take.stderr)
        XCTAssertTrue(c.notify.wait(for: "READY=1", timeout: 5).found)
        XCTAssertTrue(take.stdout.contains("the same definition as the fleet's"), take.stdout)
        XCTAssertNil(try health(c).fleet?.differingPages)
        let record = try XCTUnwrap(try c.auditRecords().last)
        XCTAssertEqual(record.kind, .pageDefinition)
        XCTAssertEqual(record.templateVersionId, "line-a-2")
        XCTAssertTrue(record.message?.hasSuffix(": line-a's map is the plant's") ?? false, record.message ?? "")
        XCTAssertTrue(record.message?.contains("heating.hysteresis: max 40 → 50") ?? false, record.message ?? "")

        // The definition taken holds across a restart; line-a's version is written and verified on the machine.
        XCTAssertEqual(c.stop(), 0)
        try c.restart()
        try waitForFirstSync(c)
        XCTAssertEqual(try c.cli(["fleet", "page", "heating"]).status, 0)
        let apply = try c.cli(["apply", "heating", "--to", "press-new"])
        XCTAssertEqual(apply.status, 0, apply.stdout + apply.stderr)
        XCTAssertTrue(apply.stdout.hasPrefix("apply heating line-a-2 to press-new"), apply.stdout)
        XCTAssertEqual(
            try Mbpoll.readHolding(port: blank.port!, unit: 1, address: 110, count: 8),
            DaemonEndToEndTests.text("Line 3", bytes: 16))
        XCTAssertEqual(try Mbpoll.readHolding(port: blank.port!, unit: 1, address: 120, count: 1), [13])

        // Released: the config's definition again, flagged again, and the version refused again.
        let release = try c.cli(["fleet", "page", "heating", "--release", "--reason", "config fixed later"])
        XCTAssertEqual(release.status, 0, release.stdout + release.stderr)
        XCTAssertEqual(try health(c).fleet?.differingPages?.first?.version, "line-a-2")
        XCTAssertEqual(try c.cli(["apply", "heating", "--to", "press-new"]).status, 1)
        for host in hosts { XCTAssertEqual(host.stop(), 0) }
    }

    private func health(_ host: DaemonHarness) throws -> HealthInfo {
        try host.decode(HealthInfo.self, try host.api("GET", "/v1/health"))
    }
}
