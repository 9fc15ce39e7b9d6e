import Foundation
import Glibc
import LastsetCore
import TestSupport
import XCTest

/// `lastset fleet doctor` and `lastset fleet repair` over real SSH with three daemons: a bad commit on the hub blocks
/// every push; doctor names its commit, file and rule; a quarantine unblocks the fleet and the three hosts carry on
/// (a version made meanwhile reaches every host and a machine, read back with mbpoll).
extension FleetEndToEndTests {
    func testABadCommitOnTheHubBlocksPushesDoctorNamesItAndAQuarantineUnblocksThreeDaemons() throws {
        let (ssh, ref, blank, hosts) = try threeHostsOverSSH()
        let (a, b, c) = (hosts[0], hosts[1], hosts[2])
        XCTAssertEqual(try a.cli(["capture", "heating", "--from", "press-ref"]).status, 0)
        for host in hosts { XCTAssertEqual(try sync(host).result, .ok) }
        XCTAssertEqual(try b.cli(["fleet", "doctor"]).status, 0)

        // Someone with write access to the hub rewrites line-a's version (a value edited) and pushes.
        let work = ssh.dir.appendingPathComponent("intruder")
        try HubRepository.git(["clone", "-q", ssh.hub.fileURL, work.path], in: ssh.dir)
        let folder = work.appendingPathComponent("templates/heating")
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
        let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        try text.replacingOccurrences(of: "\"0002\"", with: "\"0001\"").write(
            to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        try HubRepository.git(["commit", "-q", "-am", "tune heating"], in: work)
        try HubRepository.git(["push", "-q", "origin", "HEAD:main"], in: work)
        let bad = try HubRepository.git(["rev-parse", "HEAD"], in: work).trimmingCharacters(in: .whitespacesAndNewlines)

        // B's new version cannot reach the hub: every sync is refused.
        try Mbpoll.writeHolding(port: ref.port!, unit: 1, address: 120, values: [13])
        XCTAssertEqual(try b.cli(["capture", "heating", "--from", "press-ref"]).status, 0)
        let refused = try sync(b)
        XCTAssertEqual(refused.result, .refused)
        XCTAssertEqual(refused.refused.map(\.rule), [.rewritten])
        XCTAssertFalse(try hubFiles(ssh).contains("@line-b@"))
        XCTAssertGreaterThan(refused.ahead ?? 0, 0)

        let doctor = try b.cli(["fleet", "doctor"])
        XCTAssertEqual(doctor.status, 1, doctor.stdout)
        XCTAssertTrue(doctor.stdout.hasPrefix("fleet HUB-REFUSED"), doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains("problem: commit \(bad.prefix(12)) (test: tune heating): templates/heating/\(name)"), doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains("[rewritten]"), doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains("way out: lastset fleet repair quarantine --head \(bad)"), doctor.stdout)
        let diagnosis = try APICoding.decoder().decode(
            FleetDiagnosis.self, from: Data(try b.cli(["--json", "fleet", "doctor"]).stdout.utf8))
        XCTAssertEqual(diagnosis.verdict, .hubRefused)
        XCTAssertEqual(diagnosis.problems.map(\.commit), [bad])
        XCTAssertEqual(diagnosis.problems.map(\.path), ["templates/heating/\(name)"])
        XCTAssertEqual(diagnosis.problems.map(\.rule), [.rewritten])

        let repair = try b.cli(["fleet", "repair", "quarantine", "--head", bad, "--reason", "an unknown edit of line-a's version"])
        XCTAssertEqual(repair.status, 0, repair.stdout + repair.stderr)
        XCTAssertTrue(repair.stdout.hasPrefix("repair quarantine DONE"), repair.stdout)
        let branches = try HubRepository.git(["for-each-ref", "--format=%(refname) %(objectname)"], in: ssh.hub.path)
        XCTAssertTrue(branches.contains("refs/heads/lastset-quarantine/line-b-"), branches)
        XCTAssertTrue(branches.contains(" \(bad)"), "the bad commit is kept aside: \(branches)")
        let record = try XCTUnwrap(try b.auditRecords().last(where: { $0.kind == .fleetRepair }))
        XCTAssertEqual(record.result, .succeeded)
        XCTAssertTrue(record.message?.hasSuffix(": an unknown edit of line-a's version") ?? false, record.message ?? "")

        // The three daemons carry on: B's version went out with the branch, A and C take it, A's next capture
        // reaches everyone.
        XCTAssertTrue(try hubFiles(ssh).contains("@line-b@"))
        XCTAssertEqual(try sync(b).result, .ok)
        XCTAssertEqual(try sync(a).templatesIn, ["heating/line-b-1"])
        XCTAssertEqual(try sync(c).templatesIn, ["heating/line-b-1"])
        try Mbpoll.writeHolding(port: ref.port!, unit: 1, address: 120, values: [14])
        XCTAssertEqual(try a.cli(["capture", "heating", "--from", "press-ref"]).status, 0)
        XCTAssertEqual(try sync(a).templatesOut, ["heating/line-a-2"])
        for host in [b, c] { XCTAssertEqual(try sync(host).templatesIn, ["heating/line-a-2"]) }
        for host in hosts {
            XCTAssertEqual(try ids(host), ["line-a-2", "line-b-1", "line-a-1"])
            XCTAssertEqual(try host.cli(["fleet", "doctor"]).status, 0)
        }
        let apply = try c.cli(["apply", "heating", "--to", "press-new"])
        XCTAssertEqual(apply.status, 0, apply.stdout + apply.stderr)
        XCTAssertTrue(apply.stdout.hasPrefix("apply heating line-a-2 to press-new"), apply.stdout)
        XCTAssertEqual(try Mbpoll.readHolding(port: blank.port!, unit: 1, address: 120, count: 1), [14])
        for host in hosts { XCTAssertEqual(host.stop(), 0) }
    }

    private func hubFiles(_ ssh: SSHHub) throws -> String {
        try HubRepository.git(["ls-tree", "-r", "--name-only", "main"], in: ssh.hub.path)
    }
}
