import Foundation
import Glibc
import LastsetCore
import TestSupport
import XCTest

/// Fleet settings changed by a reload (SIGHUP or `lastset reload`), against a real daemon and two hubs.
extension FleetEndToEndTests {
    /// A new hub and a new interval are applied at once: the scheduled syncs start again, the first right away, and
    /// push to the new hub with no sync asked for. A new host name or branch is refused naming the setting and why,
    /// and the settings in force stay.
    func testAReloadAppliesNewFleetSettingsOrRefusesThemSayingWhy() throws {
        let first = try HubRepository()
        let second = try HubRepository()
        let ref = try peer(DaemonEndToEndTests.reference)
        func write(_ a: DaemonHarness, remote: String, host: String = "line-a", interval: String = "0s", branch: String? = nil)
            throws
        {
            var text = config(host: host, remote: remote, ref: ref.port!, blank: ref.port!)
            text = text.replacingOccurrences(of: "interval: \"0s\"", with: "interval: \"\(interval)\"")
            if let branch {
                text = text.replacingOccurrences(of: "host: \"\(host)\"", with: "host: \"\(host)\", branch: \"\(branch)\"")
            }
            try text.write(to: a.configURL, atomically: true, encoding: .utf8)
        }
        let a = try started(config(host: "line-a", remote: first.fileURL, ref: ref.port!, blank: ref.port!))
        XCTAssertEqual(try a.cli(["capture", "heating", "--from", "press-ref"]).status, 0)
        XCTAssertEqual(try sync(a).result, .ok)

        try write(a, remote: second.fileURL, interval: "1s")
        let reload = try a.cli(["reload"])
        XCTAssertEqual(reload.status, 0, reload.stdout + reload.stderr)
        let pushed = Date().addingTimeInterval(30)
        var files = ""
        while Date() < pushed {
            files = (try? HubRepository.git(["ls-tree", "-r", "--name-only", "main"], in: second.path)) ?? ""
            if files.contains("@line-a@") { break }
            usleep(50_000)
        }
        XCTAssertTrue(files.contains("templates/heating/v000001@line-a@"), "the new hub got nothing: \(a.stderr)")
        var health = try a.decode(HealthInfo.self, try a.api("GET", "/v1/health"))
        XCTAssertEqual(health.fleet?.remote, second.fileURL)
        XCTAssertEqual(health.fleet?.interval, "1s")
        // Syncs go on by themselves every second.
        let before = try XCTUnwrap(health.fleet?.lastSync?.finishedAt)
        let later = Date().addingTimeInterval(20)
        while Date() < later {
            health = try a.decode(HealthInfo.self, try a.api("GET", "/v1/health"))
            if let t = health.fleet?.lastSync?.finishedAt, t > before { break }
            usleep(50_000)
        }
        XCTAssertGreaterThan(try XCTUnwrap(health.fleet?.lastSync?.finishedAt), before)

        try write(a, remote: first.fileURL, host: "line-z")
        let renamed = try a.cli(["reload"])
        XCTAssertEqual(renamed.status, 1, renamed.stdout)
        XCTAssertTrue((renamed.stdout + renamed.stderr).contains("fleet.host"), renamed.stdout + renamed.stderr)
        XCTAssertTrue((renamed.stdout + renamed.stderr).contains("line-a-N"), renamed.stdout + renamed.stderr)
        try write(a, remote: first.fileURL, branch: "plant")
        let branched = try a.cli(["reload"])
        XCTAssertEqual(branched.status, 1, branched.stdout)
        XCTAssertTrue((branched.stdout + branched.stderr).contains("fleet.branch"), branched.stdout + branched.stderr)
        health = try a.decode(HealthInfo.self, try a.api("GET", "/v1/health"))
        XCTAssertEqual(health.fleet?.remote, second.fileURL, "a refused reload keeps the settings in force")
        XCTAssertEqual(health.fleet?.host, "line-a")
        XCTAssertEqual(a.stop(), 0)
    }
}
