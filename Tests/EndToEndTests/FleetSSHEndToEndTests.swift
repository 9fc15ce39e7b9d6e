import Foundation
import Glibc
import LastsetCore
import TestSupport
import XCTest

/// The fleet over real SSH, the way plants run it: Debian's OpenSSH server on 127.0.0.1 (started by the test,
/// its own host key and config, public keys only) in front of a bare hub, three real `lastsetd` reaching it over
/// `ssh://` with a key of their own each and the hub's host key checked against a known_hosts file; pymodbus
/// machines, read back with mbpoll.
extension FleetEndToEndTests {
    /// A daemon's config reaching the hub over SSH with its own key, the hub's host key checked against `knownHosts`.
    func config(host: String, ssh: SSHHub, key: String, knownHosts: String, ref: Int, blank: Int) -> String {
        config(
            host: host, remote: ssh.url, ref: ref, blank: blank, extra: ", sshKey: \"\(key)\", knownHosts: \"\(knownHosts)\"")
    }

    /// A hub behind sshd, a reference machine and a blank one (pymodbus), and line-a, line-b and line-c, each with a
    /// key of its own authorised on the hub, started and synced once.
    func threeHostsOverSSH() throws -> (SSHHub, PymodbusPeer, PymodbusPeer, [DaemonHarness]) {
        let ssh = try SSHHub()
        let ref = try peer(DaemonEndToEndTests.reference)
        let blank = try peer(DaemonEndToEndTests.blank)
        let hosts = try ["line-a", "line-b", "line-c"].map { name in
            let key = try ssh.authorise(keyNamed: name)
            return try started(
                config(host: name, ssh: ssh, key: key, knownHosts: ssh.knownHosts, ref: ref.port!, blank: blank.port!))
        }
        return (ssh, ref, blank, hosts)
    }

    private func syncedOK(_ host: DaemonHarness, file: StaticString = #filePath, line: UInt = #line) throws -> SyncReport {
        let report = try sync(host)
        XCTAssertEqual(report.result, .ok, "\(report.message ?? "") \(report.refused)", file: file, line: line)
        return report
    }

    /// A version deleted on one host is gone from every host after their syncs, and stays gone across more syncs
    /// and a restart of every daemon; a replay of the latest on the third host writes the version before it
    /// (checked with mbpoll on the machine).
    func testADeleteOverSSHHoldsOnThreeDaemonsAcrossSyncsAndRestarts() throws {
        let (ssh, ref, blank, hosts) = try threeHostsOverSSH()
        let (a, b, c) = (hosts[0], hosts[1], hosts[2])
        XCTAssertEqual(try a.cli(["capture", "heating", "--from", "press-ref"]).status, 0)
        try Mbpoll.writeHolding(port: ref.port!, unit: 1, address: 120, values: [13])
        XCTAssertEqual(try a.cli(["capture", "heating", "--from", "press-ref"]).status, 0)
        let pushed = try syncedOK(a)
        XCTAssertEqual(pushed.templatesOut, ["heating/line-a-1", "heating/line-a-2"], ssh.log)
        for host in [b, c] { XCTAssertEqual(try syncedOK(host).templatesIn, ["heating/line-a-1", "heating/line-a-2"]) }

        let deleted = try b.cli(["delete", "heating", "--version", "line-a-2", "--reason", "limit 13 trips the burner"])
        XCTAssertEqual(deleted.status, 0, deleted.stdout + deleted.stderr)
        XCTAssertEqual(try ids(b), ["line-a-1"])
        _ = try syncedOK(b)
        for host in [a, c] {
            let out = try host.cli(["sync"])
            XCTAssertEqual(out.status, 0, out.stdout + out.stderr)
            XCTAssertTrue(
                out.stdout.contains("deleted here (another host's tombstone): heating/line-a-2 by uid:"), out.stdout)
            XCTAssertTrue(out.stdout.contains("limit 13 trips the burner"), out.stdout)
            XCTAssertEqual(try ids(host), ["line-a-1"])
        }
        let record = try XCTUnwrap(try a.auditRecords().last)
        XCTAssertEqual(record.kind, .delete)
        XCTAssertTrue(record.who.hasSuffix(" on line-b"), record.who)

        for host in hosts { XCTAssertEqual(host.stop(), 0) }
        for host in hosts {
            try host.restart()
            try waitForFirstSync(host)
        }
        for host in hosts + hosts { _ = try syncedOK(host) }
        for host in hosts { XCTAssertEqual(try ids(host), ["line-a-1"]) }
        let apply = try c.cli(["apply", "heating", "--to", "press-new"])
        XCTAssertEqual(apply.status, 0, apply.stdout + apply.stderr)
        XCTAssertTrue(apply.stdout.hasPrefix("apply heating line-a-1 to press-new"), apply.stdout)
        XCTAssertEqual(try Mbpoll.readHolding(port: blank.port!, unit: 1, address: 120, count: 1), [12])
        // The hub still has line-a's version file: no host rewrote or removed another host's file.
        let files = try HubRepository.git(["ls-tree", "-r", "--name-only", "main"], in: ssh.hub.path)
        XCTAssertEqual(files.split(separator: "\n").filter { $0.hasPrefix("templates/heating/") }.count, 2, files)
        XCTAssertTrue(files.contains("history/heating/delete@line-a-2@line-b.json"), files)
        for host in hosts { XCTAssertEqual(host.stop(), 0) }
    }

    /// ssh checks the hub's host key: a host whose known_hosts holds another key, and a host whose key the hub
    /// does not authorise, are both offline, saying why; their local work goes on.
    func testAnUnknownHostKeyOrAnUnauthorisedKeyIsRefusedBySSH() throws {
        let ssh = try SSHHub()
        let ref = try peer(DaemonEndToEndTests.reference)
        let wrong = ssh.dir.appendingPathComponent("wrong_known_hosts")
        let impostor = ssh.dir.appendingPathComponent("impostor")
        try HubRepository.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", impostor.path])
        let impostorKey = try String(contentsOf: impostor.appendingPathExtension("pub"), encoding: .utf8)
            .split(separator: " ").prefix(2).joined(separator: " ")
        try "[127.0.0.1]:\(ssh.port) \(impostorKey)\n".write(to: wrong, atomically: true, encoding: .utf8)
        let key = try ssh.authorise(keyNamed: "line-a")
        let a = try started(config(host: "line-a", ssh: ssh, key: key, knownHosts: wrong.path, ref: ref.port!, blank: ref.port!))
        XCTAssertEqual(try a.cli(["capture", "heating", "--from", "press-ref"]).status, 0)
        let out = try a.cli(["sync"])
        XCTAssertEqual(out.status, 1, out.stdout)
        XCTAssertTrue(out.stdout.contains("sync OFFLINE"), out.stdout)
        XCTAssertTrue(out.stdout.contains("Host key verification failed"), out.stdout)

        let unauthorised = ssh.dir.appendingPathComponent("not_authorised").path
        try HubRepository.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", unauthorised])
        let b = try started(
            config(host: "line-b", ssh: ssh, key: unauthorised, knownHosts: ssh.knownHosts, ref: ref.port!, blank: ref.port!))
        let denied = try b.cli(["sync"])
        XCTAssertEqual(denied.status, 1, denied.stdout)
        XCTAssertTrue(denied.stdout.contains("Permission denied (publickey)"), denied.stdout)
        let files = try HubRepository.git(["for-each-ref"], in: ssh.hub.path)
        XCTAssertEqual(files, "", "nothing reached the hub")
        for host in [a, b] { XCTAssertEqual(host.stop(), 0) }
    }
}
