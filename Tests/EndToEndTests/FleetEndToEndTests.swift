import Foundation
import Glibc
import LastsetCore
import TestSupport
import XCTest

/// Three real `lastsetd` hosts sharing templates through a bare hub repository served by `git daemon`
/// on 127.0.0.1, against pymodbus peers; mbpoll confirms what a replay wrote.
final class FleetEndToEndTests: XCTestCase {
    var peers: [PymodbusPeer] = []

    override func tearDown() {
        for p in peers { p.stop() }
        peers = []
    }

    func peer(_ values: [Int: [UInt16]]) throws -> PymodbusPeer {
        let p = try PymodbusPeer.startTCP(values: values)
        peers.append(p)
        return p
    }

    func config(host: String, remote: String, ref: Int, blank: Int, extra: String = "") -> String {
        """
        {
          version: 1,
          fleet: { remote: "\(remote)", interval: "0s", host: "\(host)"\(extra) },
          devices: [
            { id: "press-ref", endpoint: "tcp://127.0.0.1:\(ref)", unit: 1, pages: ["heating"] },
            { id: "press-new", endpoint: "tcp://127.0.0.1:\(blank)", unit: 1, pages: ["heating"] },
          ],
        \(DaemonEndToEndTests.pages)
        }
        """
    }

    /// A daemon that has finished the sync it runs at start (so what a test syncs next is its own doing).
    func started(_ config: String) throws -> DaemonHarness {
        let host = try DaemonHarness(config: config)
        try waitForFirstSync(host)
        return host
    }

    /// Waits until a (re)started daemon has finished the sync it runs at start.
    func waitForFirstSync(_ host: DaemonHarness) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let health = try host.decode(HealthInfo.self, try host.api("GET", "/v1/health"))
            if health.fleet?.lastSync != nil { return }
            usleep(20_000)
        }
        throw TestSupportError("the daemon's first fleet sync did not finish; stderr:\n\(host.stderr)")
    }

    func ids(_ host: DaemonHarness) throws -> [String] {
        let out = try host.cli(["--json", "templates", "heating"])
        XCTAssertEqual(out.status, 0, out.stderr)
        return try APICoding.decoder().decode([TemplateListing].self, from: Data(out.stdout.utf8)).map(\.id)
    }

    func sync(_ host: DaemonHarness) throws -> SyncReport {
        let out = try host.cli(["--json", "sync"])
        return try APICoding.decoder().decode(SyncReport.self, from: Data(out.stdout.utf8))
    }

    func testCaptureOnOneHostIsAppliedOnAnotherAndVersionsMadeWhileTheHubIsDownAreAllKept() throws {
        let hub = try HubRepository()
        let url = try hub.serve()
        let ref = try peer(DaemonEndToEndTests.reference)
        let blank = try peer(DaemonEndToEndTests.blank)
        let a = try started(config(host: "line-a", remote: url, ref: ref.port!, blank: blank.port!))
        let b = try started(config(host: "line-b", remote: url, ref: ref.port!, blank: blank.port!))
        let c = try started(config(host: "line-c", remote: url, ref: ref.port!, blank: blank.port!))

        // Capture on A; A pushes, B fetches and applies the template to a blank machine.
        let capture = try a.cli(["capture", "heating", "--from", "press-ref"])
        XCTAssertEqual(capture.status, 0, capture.stdout + capture.stderr)
        XCTAssertTrue(capture.stdout.contains("as version line-a-1"), capture.stdout)
        let out = try a.cli(["sync"])
        XCTAssertEqual(out.status, 0, out.stdout + out.stderr)
        XCTAssertTrue(out.stdout.contains("+ heating/line-a-1"), out.stdout)
        let into = try sync(b)
        XCTAssertEqual(into.result, .ok, into.message ?? "")
        XCTAssertEqual(into.templatesIn, ["heating/line-a-1"])
        let apply = try b.cli(["apply", "heating", "--to", "press-new", "--version", "line-a-1"])
        XCTAssertEqual(apply.status, 0, apply.stdout + apply.stderr)
        XCTAssertTrue(apply.stdout.hasPrefix("apply heating line-a-1 to press-new"), apply.stdout)
        XCTAssertEqual(
            try Mbpoll.readHolding(port: blank.port!, unit: 1, address: 100, count: 4),
            [2, UInt16(bitPattern: -150), 0xE240, 0x0001])
        XCTAssertEqual(
            try Mbpoll.readHolding(port: blank.port!, unit: 1, address: 110, count: 8),
            DaemonEndToEndTests.text("Line 3", bytes: 16))
        // B's replay record names the fleet id, and reaches the hub with B's next sync.
        let replay = try XCTUnwrap(try b.auditRecords().last)
        XCTAssertEqual(replay.templateVersionId, "line-a-1")

        // Hub down: both capture the same page; capture and apply keep working; health says it is failing.
        // The reference changed first (a capture identical to a host's latest makes no new version).
        hub.stop()
        try Mbpoll.writeHolding(port: ref.port!, unit: 1, address: 120, values: [13])
        XCTAssertEqual(try a.cli(["capture", "heating", "--from", "press-ref"]).status, 0)
        XCTAssertEqual(try b.cli(["capture", "heating", "--from", "press-ref"]).status, 0)
        let offline = try b.cli(["sync"])
        XCTAssertEqual(offline.status, 1, offline.stdout)
        XCTAssertTrue(offline.stdout.contains("sync OFFLINE"), offline.stdout)
        let writesBefore = try blank.writes().count
        let offlineApply = try b.cli(["apply", "heating", "--to", "press-new"])
        XCTAssertEqual(offlineApply.status, 0, offlineApply.stdout + offlineApply.stderr)
        XCTAssertTrue(offlineApply.stdout.contains("warning: fleet: hub not used (offline"), offlineApply.stdout)
        XCTAssertGreaterThan(try blank.writes().count, writesBefore)
        XCTAssertEqual(try Mbpoll.readHolding(port: blank.port!, unit: 1, address: 100, count: 2), [2, UInt16(bitPattern: -150)])
        let health = try b.decode(HealthInfo.self, try b.api("GET", "/v1/health"))
        XCTAssertEqual(health.fleet?.failing, true)
        XCTAssertEqual(health.fleet?.lastSync?.result, .offline)
        XCTAssertEqual(health.fleet?.ahead ?? 0 > 0, true, "\(String(describing: health.fleet))")
        let status = try b.cli(["status"])
        XCTAssertTrue(status.stdout.contains("last sync"), status.stdout)
        XCTAssertTrue(status.stdout.contains("offline"), status.stdout)

        // Hub back on the same port: every host ends with every version and the same latest.
        try hub.serve(port: hub.port)
        for host in [a, b, a, c] {
            let r = try sync(host)
            XCTAssertEqual(r.result, .ok, r.message ?? "")
        }
        let expected = ["line-b-1", "line-a-2", "line-a-1"]
        XCTAssertEqual(try ids(a), expected)
        XCTAssertEqual(try ids(b), expected)
        XCTAssertEqual(try ids(c), expected)
        let hubFiles = try HubRepository.git(["ls-tree", "-r", "--name-only", "main"], in: hub.path)
        XCTAssertEqual(hubFiles.split(separator: "\n").filter { $0.hasPrefix("templates/heating/") }.count, 3, hubFiles)
        // Every host's audit records reach the hub, one file per host; C shows them all.
        XCTAssertTrue(hubFiles.contains("audit/line-a.jsonl") && hubFiles.contains("audit/line-b.jsonl"), hubFiles)
        let audit = try c.cli(["audit", "--all-hosts"])
        XCTAssertEqual(audit.status, 0, audit.stderr)
        XCTAssertTrue(audit.stdout.hasPrefix("HOST"), audit.stdout)
        XCTAssertTrue(audit.stdout.contains("line-b") && audit.stdout.contains("line-a-1"), audit.stdout)
        for host in [a, b, c] { XCTAssertEqual(host.stop(), 0) }
    }

    /// A legacy iOS archive imported on one host is committed as an import, like a template file, and
    /// reaches the other hosts.
    func testAnImportedIOSArchiveIsCommittedAndReachesTheOtherHosts() throws {
        let hub = try HubRepository()
        let url = try hub.serve()
        let ref = try peer(DaemonEndToEndTests.reference)
        let a = try started(config(host: "line-a", remote: url, ref: ref.port!, blank: ref.port!))
        let b = try started(config(host: "line-b", remote: url, ref: ref.port!, blank: ref.port!))
        let file = TestPaths.temporaryFile("Heating", prefix: "fleet-ios")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(IOSArchiveEndToEndTests.archive()).write(to: file)
        let imported = try a.cli(["import", file.path, "--page", "heating", "--identity", "model=PRS-200"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(try sync(a).result, .ok)
        let log = try HubRepository.git(["log", "--format=%s", "main"], in: hub.path)
        XCTAssertTrue(log.contains("import heating line-a-1"), log)
        let into = try sync(b)
        XCTAssertEqual(into.templatesIn, ["heating/line-a-1"])
        XCTAssertEqual(try ids(b), ["line-a-1"])
        for host in [a, b] { XCTAssertEqual(host.stop(), 0) }
    }

    /// An ssh key pair for signing (`ssh-keygen` from openssh-client), and its allowed-signers line.
    private func key(_ name: String, in dir: URL) throws -> (privateKey: String, signer: String) {
        let path = dir.appendingPathComponent(name).path
        try HubRepository.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path])
        let pub = try String(contentsOfFile: path + ".pub", encoding: .utf8).split(separator: " ")
        return (path, "\(name) \(pub[0]) \(pub[1])")
    }

    func testUnsignedOrTamperedCommitsOnTheHubAreRefusedUnderRequireSigned() throws {
        let hub = try HubRepository()
        let url = try hub.serve()
        let keys = try TestPaths.temporaryDirectory(prefix: "keys")
        defer { try? FileManager.default.removeItem(at: keys) }
        let ka = try key("line-a", in: keys)
        let kb = try key("line-b", in: keys)
        let signers = keys.appendingPathComponent("allowed_signers")
        try (ka.signer + "\n" + kb.signer + "\n").write(to: signers, atomically: true, encoding: .utf8)
        let ref = try peer(DaemonEndToEndTests.reference)
        let blank = try peer(DaemonEndToEndTests.blank)
        func signed(_ host: String, _ key: String) -> String {
            config(
                host: host, remote: url, ref: ref.port!, blank: blank.port!,
                extra: ", requireSigned: true, allowedSigners: \"\(signers.path)\", signingKey: \"\(key)\"")
        }
        let a = try started(signed("line-a", ka.privateKey))
        let b = try started(signed("line-b", kb.privateKey))
        XCTAssertEqual(try a.cli(["capture", "heating", "--from", "press-ref"]).status, 0)
        XCTAssertEqual(try sync(a).result, .ok)
        let good = try sync(b)
        XCTAssertEqual(good.result, .ok, "\(good.refused)")
        XCTAssertEqual(good.templatesIn, ["heating/line-a-1"])
        let log = try HubRepository.git(
            ["log", "--format=%G? %s", "main"], in: hub.path,
            environment: [
                "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "gpg.ssh.allowedSignersFile", "GIT_CONFIG_VALUE_0": signers.path,
            ])
        XCTAssertTrue(log.split(separator: "\n").allSatisfy { $0.hasPrefix("G ") }, log)

        // Someone with write access to the hub pushes an unsigned commit with a well-formed template.
        let work = keys.appendingPathComponent("intruder")
        try HubRepository.git(["clone", "-q", url, work.path], in: keys)
        let forged = Template(
            pageId: "heating", pageHash: "sha256:x", version: 1, capturedAt: Date(), capturedBy: "uid:0",
            source: TemplateSource(deviceId: "press-ref", endpoint: "tcp://127.0.0.1:1", unit: 1, identity: []),
            entries: [
                TemplateEntry(
                    registerId: "heating.mode", address: 100, length: 1, valueData: "0001", value: .unsigned(1), lastDate: Date())
            ], skipped: [], host: "line-z", archivedAt: Date())
        let name = forged.versionId.fileName
        try TemplateFile.encode(forged).write(to: work.appendingPathComponent("templates/heating/\(name)"))
        try HubRepository.git(["add", "-A"], in: work)
        try HubRepository.git(["commit", "-q", "-m", "capture heating line-z-1"], in: work)
        try HubRepository.git(["push", "-q", "origin", "HEAD:main"], in: work)
        let unsigned = try sync(b)
        XCTAssertEqual(unsigned.result, .refused)
        XCTAssertEqual(unsigned.refused.map(\.reason), ["not signed (requireSigned)"])
        XCTAssertFalse(try ids(b).contains("line-z-1"))
        let health = try b.decode(HealthInfo.self, try b.api("GET", "/v1/health"))
        XCTAssertEqual(health.fleet?.failing, true)

        // Then a signed commit changed after signing (same signature, another message): a bad signature.
        try HubRepository.git(["reset", "-q", "--hard", "HEAD~1"], in: work)
        let head = try HubRepository.git(["cat-file", "commit", "HEAD"], in: work)
        XCTAssertTrue(head.contains("gpgsig"), head)
        // The message is the last part of the commit object: append to it.
        let tampered = String(head.dropLast(head.hasSuffix("\n") ? 1 : 0)) + " (edited)\n"
        let sha = try HubRepository.git(["hash-object", "-t", "commit", "-w", "--stdin"], in: work, input: tampered)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try HubRepository.git(["push", "-q", "--force", "origin", "\(sha):refs/heads/main"], in: work)
        let bad = try sync(b)
        XCTAssertEqual(bad.result, .refused)
        XCTAssertEqual(bad.refused.map(\.reason), ["bad signature: the commit was changed after it was signed"])
        XCTAssertEqual(try ids(b), ["line-a-1"])
        // Applying still works with what B has.
        let apply = try b.cli(["apply", "heating", "--to", "press-new"])
        XCTAssertEqual(apply.status, 0, apply.stdout + apply.stderr)
        XCTAssertTrue(apply.stdout.contains("warning: fleet: hub not used (refused"), apply.stdout)
        for host in [a, b] { XCTAssertEqual(host.stop(), 0) }
    }
}
