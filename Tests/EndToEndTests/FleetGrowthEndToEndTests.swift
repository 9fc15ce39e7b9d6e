import Foundation
import Glibc
import LastsetCore
import TestSupport
import XCTest

/// The growth policy on three daemons over SSH: git never packs their repositories on its own; each daemon packs its
/// own after a scheduled sync that found the fleet idle, says so in its log, and the fleet works on.
extension FleetEndToEndTests {
    func testEachOfThreeDaemonsOverSSHPacksItsRepositoryAfterAnIdleSync() throws {
        let (ssh, ref, blank, hosts) = try threeHostsOverSSH()
        defer { withExtendedLifetime((ssh, ref)) {} }
        defer { if testRun?.hasSucceeded == false { for h in hosts { print("----\n", h.stderr) } } }
        let (a, b, c) = (hosts[0], hosts[1], hosts[2])
        XCTAssertEqual(try a.cli(["capture", "heating", "--from", "press-ref"]).status, 0)
        XCTAssertEqual(try sync(a).result, .ok)
        for host in [b, c] { XCTAssertEqual(try sync(host).templatesIn, ["heating/line-a-1"]) }
        for host in hosts {
            let repository = host.dataDir.appendingPathComponent("fleet")
            XCTAssertEqual(try HubRepository.git(["config", "gc.auto"], in: repository), "0\n")
            XCTAssertGreaterThan(try Self.looseObjects(repository), 0, "commits and a fetch made loose objects")
            // Scheduled syncs every second from the reload on: the first idle one packs.
            let config = try String(contentsOf: host.configURL, encoding: .utf8)
                .replacingOccurrences(of: #"interval: "0s""#, with: #"interval: "1s""#)
            try config.write(to: host.configURL, atomically: true, encoding: .utf8)
            XCTAssertEqual(try host.cli(["reload"]).status, 0)
        }
        for host in hosts {
            XCTAssertTrue(
                host.stderrContains("fleet: packed the repository's loose objects (daily)", timeout: 30), host.stderr)
            let repository = host.dataDir.appendingPathComponent("fleet")
            XCTAssertTrue(FileManager.default.fileExists(atPath: repository.appendingPathComponent(".git/packed-refs").path))
            XCTAssertEqual(try HubRepository.git(["fsck", "--no-progress"], in: repository), "")
        }
        // Packed, the fleet works on: line-b's capture reaches line-c by the schedule, and line-c writes it to the
        // machine (read back with mbpoll).
        try Mbpoll.writeHolding(port: ref.port!, unit: 1, address: 120, values: [17])
        XCTAssertEqual(try b.cli(["capture", "heating", "--from", "press-ref"]).status, 0)
        let deadline = Date().addingTimeInterval(30)
        while try ids(c).first != "line-b-1" && Date() < deadline { usleep(100_000) }
        XCTAssertEqual(try ids(c).first, "line-b-1")
        let apply = try c.cli(["apply", "heating", "--to", "press-new"])
        XCTAssertEqual(apply.status, 0, apply.stdout + apply.stderr)
        XCTAssertEqual(try Mbpoll.readHolding(port: blank.port!, unit: 1, address: 120, count: 1), [17])
        for host in hosts { XCTAssertEqual(host.stop(), 0) }
    }

    /// `git count-objects`' loose objects.
    static func looseObjects(_ repository: URL) throws -> Int {
        let text = try HubRepository.git(["count-objects", "-v"], in: repository)
        return try XCTUnwrap(FleetUpkeep.Objects(countObjects: text)).loose
    }
}
