import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// Replacement restore ("Data Storage for Modbus", issue 23 part 3) through the real daemon against pymodbus presses
/// put in each other's place on one port: a conforming reconnect costs one fingerprint read (counted at the device);
/// a replacement with another serial and blank registers, and the same press back at factory values, get the last
/// verified version back as `policy:replacement` (read back with mbpoll), once per finding; a value changed with
/// mbpoll, another model and another revision are never written to (the presses' write logs).
final class ReplacementEndToEndTests: XCTestCase {
    private var peers: [PymodbusPeer] = []

    override func tearDown() {
        for p in peers { p.stop() }
        peers = []
    }

    static let blank: [Int: [UInt16]] = [100: [0xFFFF], 101: [0x7FFF]]

    /// A press on `port` (0: any) with model register 0, serial number registers 1–2, `values` at 100–101.
    private func press(
        port: Int = 0, model: UInt16 = 200, serial: UInt32, values: [Int: [UInt16]], revision: String = "3.1.4"
    ) throws -> PymodbusPeer {
        var words = values
        words[0] = [model]
        words[1] = [UInt16(serial >> 16), UInt16(serial & 0xFFFF)]
        let identity = try IdentificationEndToEndTests.identityFile([
            "VendorName": "Acme Presses", "ProductCode": "PRS-200", "MajorMinorRevision": revision,
        ])
        let p =
            port == 0
            ? try PymodbusPeer.startTCP(options: ["--identity", identity], values: words)
            : try PymodbusPeer.startTCP(port: port, options: ["--identity", identity], values: words)
        peers.append(p)
        return p
    }

    /// Stops `old` and puts `new` in its place.
    private func swap(_ old: PymodbusPeer, for make: () throws -> PymodbusPeer) throws -> PymodbusPeer {
        old.stop()
        peers.removeAll { $0 === old }
        return try make()
    }

    private static func config(port: Int, policy: String, objects: Bool, quirks: String = "{}") -> String {
        let revision = objects ? #", { object: "MajorMinorRevision", match: "^3\\." }"# : ""
        return """
            { version: 1,
              devices: [ { id: "press", endpoint: "tcp://127.0.0.1:\(port)", unit: 1, pages: ["heating"], poll: "200ms",
                           replacement: "\(policy)", serialNumber: [ { registerId: "serial", address: 1, type: "u32" } ],
                           quirks: \(quirks) } ],
              pages: [
                { id: "heating", identity: [ { registerId: "model", address: 0, type: "u16" }\(revision) ],
                  registers: [
                    { registerId: "heating.mode", address: 100, type: "u16" },
                    { registerId: "heating.setpoint", address: 101, type: "s16" },
                  ] },
              ],
            }
            """
    }

    /// Captures the press's page and applies it back (its last verified version: v1), then waits until a poll has
    /// recorded the machine's fingerprint.
    private func prepare(_ daemon: DaemonHarness) throws {
        let capture = try daemon.cli(["capture", "heating", "--from", "press"])
        XCTAssertEqual(capture.status, 0, capture.stdout + capture.stderr)
        let apply = try daemon.cli(["apply", "heating", "--to", "press"])
        XCTAssertEqual(apply.status, 0, apply.stdout + apply.stderr)
        XCTAssertTrue(daemon.stderrContains("machine press: fingerprint recorded"), daemon.stderr)
    }

    private func restoreJobs(_ daemon: DaemonHarness) throws -> [JobInfo] {
        try daemon.decode([JobInfo].self, try daemon.api("GET", "/v1/jobs")).filter { $0.who == ReplacementPolicy.principal }
    }

    func testAConformingReconnectCostsOneFingerprintRead() throws {
        var a = try press(serial: 123_456, values: [100: [2], 101: [215]])
        let port = a.port!
        let daemon = try DaemonHarness(config: Self.config(port: port, policy: "restore", objects: false))
        try prepare(daemon)
        a = try swap(a) { try press(port: port, serial: 123_456, values: [100: [2], 101: [215]]) }
        // Ten polls of the press put back: each is one fingerprint read (model and serial, 0–2, one request) and one
        // read of the page; nothing else reaches it.
        XCTAssertTrue(eventually(timeout: 20) { ((try? a.arrivals()) ?? []).filter { $0.address == 100 }.count >= 10 })
        let arrivals = try a.arrivals()
        let fingerprints = arrivals.filter { $0.function == 3 && $0.address == 0 && $0.count == 3 }
        let pages = arrivals.filter { $0.function == 3 && $0.address == 100 && $0.count == 2 }
        XCTAssertEqual(fingerprints.count + pages.count, arrivals.count, "\(arrivals)")
        XCTAssertTrue(abs(fingerprints.count - pages.count) <= 1, "one fingerprint read per poll: \(arrivals)")
        // A poll begun on the press taken away may end on the one put back (its page read after the reconnect);
        // every poll begun on the press put back reads the fingerprint first.
        let leading = arrivals.prefix { $0.address != 0 }
        XCTAssertLessThanOrEqual(leading.count, 1, "the fingerprint is read first: \(arrivals)")
        XCTAssertEqual(try a.writes().count, 0)
        XCTAssertFalse(daemon.stderr.contains("machine press: replaced"), daemon.stderr)
        XCTAssertEqual(try restoreJobs(daemon).count, 0)
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testAReplacementAndAResetAreRestoredOnceAndALocalChangeIsLeftAlone() throws {
        let a = try press(serial: 123_456, values: [100: [2], 101: [215]])
        let port = a.port!
        let daemon = try DaemonHarness(config: Self.config(port: port, policy: "restore", objects: false))
        try prepare(daemon)

        // A replacement: another serial number, blank registers.
        let b = try swap(a) { try press(port: port, serial: 7, values: Self.blank) }
        XCTAssertTrue(
            eventually(timeout: 20) { (try? Mbpoll.readHolding(port: port, unit: 1, address: 100, count: 2)) == [2, 215] })
        XCTAssertTrue(eventually(timeout: 10) { ((try? self.restoreJobs(daemon)) ?? []).first?.state == .finished })
        var jobs = try restoreJobs(daemon)
        XCTAssertEqual(jobs.count, 1)
        XCTAssertEqual(jobs.first?.applyAll?.succeeded, true, "\(jobs)")
        XCTAssertEqual(Set(try b.writes().map(\.address)).subtracting([100, 101]), [], "only the page's registers")
        let written = try b.writes().count
        XCTAssertTrue(daemon.stderrContains("machine press: replaced resolved; this machine is the device's from now on"))
        let audit = try daemon.auditRecords().filter { $0.who == ReplacementPolicy.principal }
        XCTAssertTrue(audit.contains { $0.result == .succeeded && $0.templateVersionId == "1" }, "\(audit)")

        // Someone changes a value at the machine: drift, never restored.
        try Mbpoll.writeHolding(port: port, unit: 1, address: 101, values: [230])
        XCTAssertTrue(daemon.stderrContains("machine press: changedElsewhere (heating: heating.setpoint)"), daemon.stderr)
        let before = try b.arrivals().count
        XCTAssertTrue(eventually(timeout: 10) { ((try? b.arrivals().count) ?? 0) >= before + 6 })
        XCTAssertEqual(try b.writes().count, written + 1, "only mbpoll's write")
        XCTAssertEqual(try Mbpoll.readHolding(port: port, unit: 1, address: 101, count: 1), [230])
        XCTAssertEqual(try restoreJobs(daemon).count, 1)

        // The same press back at factory values (same serial): restored.
        let c = try swap(b) { try press(port: port, serial: 7, values: Self.blank) }
        XCTAssertTrue(
            eventually(timeout: 20) { (try? Mbpoll.readHolding(port: port, unit: 1, address: 100, count: 2)) == [2, 215] })
        XCTAssertTrue(daemon.stderrContains("machine press: factoryReset (heating)"), daemon.stderr)
        XCTAssertTrue(eventually(timeout: 10) { ((try? self.restoreJobs(daemon)) ?? []).allSatisfy { $0.state == .finished } })
        jobs = try restoreJobs(daemon)
        XCTAssertEqual(jobs.count, 2)
        // Never twice for one finding: more polls, no more writes.
        let restored = try c.writes().count
        let polled = try c.arrivals().count
        XCTAssertTrue(eventually(timeout: 10) { ((try? c.arrivals().count) ?? 0) >= polled + 6 })
        XCTAssertEqual(try c.writes().count, restored)
        XCTAssertEqual(try restoreJobs(daemon).count, 2)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// A protected page (docs/CHANGE-CONTROL.md) is never restored by itself: the replacement is found and logged,
    /// and nothing is written to the new press (its write log) — that takes an approved change request.
    func testAProtectedPageIsNeverRestoredWithoutAnApproval() throws {
        let a = try press(serial: 123_456, values: [100: [2], 101: [215]])
        let port = a.port!
        let daemon = try DaemonHarness(config: Self.config(port: port, policy: "restore", objects: false))
        try prepare(daemon)
        let protected = Self.config(port: port, policy: "restore", objects: false)
            .replacingOccurrences(of: "  pages: [\n", with: "  changeControl: { protectedPages: [\"heating\"] },\n  pages: [\n")
        XCTAssertTrue(protected.contains("changeControl"))
        try protected.write(to: daemon.configURL, atomically: true, encoding: .utf8)
        XCTAssertEqual(try daemon.api("POST", "/v1/reload").status, 200)
        let b = try swap(a) { try press(port: port, serial: 7, values: Self.blank) }
        XCTAssertTrue(
            daemon.stderrContains("machine press: page \"heating\" is protected: not restored automatically"), daemon.stderr)
        let polled = try b.arrivals().count
        XCTAssertTrue(eventually(timeout: 10) { ((try? b.arrivals().count) ?? 0) >= polled + 6 })
        XCTAssertEqual(try b.writes().count, 0)
        XCTAssertEqual(try restoreJobs(daemon).count, 0)
        XCTAssertEqual(try Mbpoll.readHolding(port: port, unit: 1, address: 100, count: 2), [0xFFFF, 0x7FFF])
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testAnotherModelAndAnotherRevisionAreNeverWrittenTo() throws {
        let a = try press(serial: 123_456, values: [100: [2], 101: [215]])
        let port = a.port!
        let daemon = try DaemonHarness(config: Self.config(port: port, policy: "restore", objects: true))
        try prepare(daemon)

        let otherModel = try swap(a) { try press(port: port, model: 300, serial: 8, values: Self.blank) }
        XCTAssertTrue(daemon.stderrContains("machine press: anotherModel (model)"), daemon.stderr)
        var polled = try otherModel.arrivals().count
        XCTAssertTrue(eventually(timeout: 10) { ((try? otherModel.arrivals().count) ?? 0) >= polled + 6 })
        XCTAssertEqual(try otherModel.writes().count, 0)
        // GET /v1/devices carries the open finding (the console's banner).
        let status = try daemon.decode(DeviceStatus.self, try daemon.api("GET", "/v1/devices/press"))
        XCTAssertEqual(status.machine?.kind, .anotherModel)
        XCTAssertEqual(status.machine?.detail, ["model"])

        let otherRevision = try swap(otherModel) { try press(port: port, serial: 9, values: Self.blank, revision: "4.0.0") }
        XCTAssertTrue(daemon.stderrContains("machine press: anotherModel (fc43:MajorMinorRevision)"), daemon.stderr)
        polled = try otherRevision.arrivals().count
        XCTAssertTrue(eventually(timeout: 10) { ((try? otherRevision.arrivals().count) ?? 0) >= polled + 6 })
        XCTAssertEqual(try otherRevision.writes().count, 0)
        XCTAssertEqual(try Mbpoll.readHolding(port: port, unit: 1, address: 100, count: 2), [0xFFFF, 0x7FFF])
        XCTAssertEqual(try restoreJobs(daemon).count, 0)

        // An accepted revision (3.2.0 against ^3\.) with another serial: a replacement, restored.
        _ = try swap(otherRevision) { try press(port: port, serial: 10, values: Self.blank, revision: "3.2.0") }
        XCTAssertTrue(
            eventually(timeout: 20) { (try? Mbpoll.readHolding(port: port, unit: 1, address: 100, count: 2)) == [2, 215] })
        XCTAssertTrue(
            eventually(timeout: 10) {
                (try? daemon.decode(DeviceStatus.self, try daemon.api("GET", "/v1/devices/press")))?.machine == nil
            }, "resolved: no finding left")
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testASwapWhileTheDaemonWasStoppedIsFoundAtItsStart() throws {
        let a = try press(serial: 123_456, values: [100: [2], 101: [215]])
        let port = a.port!
        let daemon = try DaemonHarness(config: Self.config(port: port, policy: "notify", objects: false))
        try prepare(daemon)
        XCTAssertEqual(daemon.stop(), 0)
        let b = try swap(a) { try press(port: port, serial: 7, values: Self.blank) }
        try daemon.restart()
        // The fingerprint known before the stop is kept (lastset.db): the press found is a replacement, not a first
        // sight; under `notify` it is reported and nothing is written.
        XCTAssertTrue(daemon.stderrContains("machine press: replaced (serial)"), daemon.stderr)
        let polled = try b.arrivals().count
        XCTAssertTrue(eventually(timeout: 10) { ((try? b.arrivals().count) ?? 0) >= polled + 6 })
        XCTAssertEqual(try b.writes().count, 0)
        XCTAssertEqual(try restoreJobs(daemon).count, 0)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// The seeded randomized swap trials (`make swap-trials` runs 200; Tests/chaos/swaptrials.py) in small: 10 trials
    /// of seed 4242, every invariant checked from the presses' frame logs and mbpoll.
    func testTenSeededRandomizedSwapTrials() throws {
        let run = try ProgramRun.run(
            TestPaths.repoRoot.appendingPathComponent("Tests/chaos/swaptrials.py"),
            ["--bin", TestPaths.productsDirectory.path, "--trials", "10", "--seed", "4242"], mergingStderr: true,
            timeout: 300)
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertTrue(run.stdout.contains("10 trials") && run.stdout.contains("0 violations"), run.stdout)
    }

    /// `lastset events` (GET /v1/events) following the daemon through a replacement, its restore and a local change.
    private func follow(_ daemon: DaemonHarness, _ arguments: [String]) throws -> PeerProcess {
        let process = try PeerProcess.start(
            try TestPaths.executable("lastset"), ["--socket", daemon.socketPath] + arguments, readyPrefix: nil)
        XCTAssertTrue(eventually(timeout: 10) { process.stderr.contains("following events") }, process.stderr)
        return process
    }

    private static func events(_ process: PeerProcess) -> [ServerEvent] {
        process.stdoutLines.compactMap { try? APICoding.decoder().decode(ServerEvent.self, from: Data($0.utf8)) }
    }

    func testTheEventsStreamCarriesTheFindingsTheRestoreAndTheDrift() throws {
        let a = try press(serial: 123_456, values: [100: [2], 101: [215]])
        let port = a.port!
        let daemon = try DaemonHarness(config: Self.config(port: port, policy: "restore", objects: false))
        try prepare(daemon)
        let follower = try follow(daemon, ["--json", "events"])
        defer { follower.terminate() }

        _ = try swap(a) { try press(port: port, serial: 7, values: Self.blank) }
        XCTAssertTrue(eventually(timeout: 20) { Self.events(follower).contains { $0.event == .resolved } }, follower.stderr)
        var events = Self.events(follower)
        let names = events.map(\.event)
        XCTAssertEqual(events.first { $0.event == .replaced }?.finding?.detail, ["serial"])
        XCTAssertEqual(events.first { $0.event == .replaced }?.finding?.restore, .pending)
        let started = try XCTUnwrap(events.first { $0.event == .jobStarted }?.job)
        XCTAssertEqual(started.who, ReplacementPolicy.principal)
        XCTAssertEqual(started.kind, .applyAll)
        let finished = try XCTUnwrap(events.first { $0.event == .jobFinished })
        XCTAssertEqual(finished.job?.id, started.id)
        XCTAssertEqual(finished.succeeded, true)
        XCTAssertNil(finished.job?.applyAll, "the event carries the job without its report")
        XCTAssertEqual(events.first { $0.event == .resolved }?.adopted, true)
        // In the order they happened: found, restore started and finished, resolved.
        let order = [ServerEventName.replaced, .jobStarted, .jobFinished, .resolved].map { names.firstIndex(of: $0) ?? -1 }
        XCTAssertEqual(order, order.sorted(), "\(names)")
        XCTAssertFalse(order.contains(-1), "\(names)")

        // A value changed at the press: the finding and the poll's drift, naming the register.
        // (The blank replacement drifted too, before its restore: both registers, then cleared.)
        XCTAssertEqual(events.first { $0.event == .drift }?.registers, ["heating.mode", "heating.setpoint"])
        XCTAssertTrue(names.contains(.driftCleared), "\(names)")
        let seen = events.count
        try Mbpoll.writeHolding(port: port, unit: 1, address: 101, values: [230])
        XCTAssertTrue(eventually(timeout: 10) { Self.events(follower).dropFirst(seen).contains { $0.event == .drift } })
        XCTAssertTrue(eventually(timeout: 10) { Self.events(follower).contains { $0.event == .changedElsewhere } })
        events = Array(Self.events(follower).dropFirst(seen))
        XCTAssertEqual(events.first { $0.event == .drift }?.registers, ["heating.setpoint"])
        XCTAssertEqual(events.first { $0.event == .drift }?.page, "heating")
        XCTAssertEqual(events.first { $0.event == .changedElsewhere }?.finding?.detail, ["heating: heating.setpoint"])

        // --count: one event, one line, and the command ends by itself.
        let counted = try follow(daemon, ["events", "--count", "1"])
        let capture = try daemon.cli(["capture", "heating", "--from", "press"])
        XCTAssertEqual(capture.status, 0, capture.stdout + capture.stderr)
        XCTAssertTrue(eventually(timeout: 10) { counted.hasExited }, counted.stderr)
        XCTAssertEqual(counted.process.terminationStatus, 0)
        XCTAssertEqual(counted.stdoutLines.count, 1, "\(counted.stdoutLines)")
        XCTAssertTrue(
            counted.stdoutLines.first?.contains("jobStarted  press  capture heating") ?? false, "\(counted.stdoutLines)")

        // The daemon stopping ends the stream: the follower exits 0.
        XCTAssertEqual(daemon.stop(), 0)
        XCTAssertTrue(eventually(timeout: 10) { follower.hasExited }, follower.stderr)
        XCTAssertEqual(follower.process.terminationStatus, 0, follower.stderr)
    }

    /// A page's declared reset marker (`resetMarker`): the press restarted at its factory values (mode 1, setpoint
    /// 100 — real values, not "not set") is told from a local change by the marker alone. With the marker register
    /// still 1 the same values are a change elsewhere and nothing is written; with it 0 (the press's own word that it
    /// was reset) the page is at factory values and restored under `restore`, read back with mbpoll.
    func testAResetMarkerAloneTellsAFactoryResetAndItIsRestored() throws {
        let values: [Int: [UInt16]] = [100: [2], 101: [215], 102: [1]]
        let a = try press(serial: 123_456, values: values)
        let port = a.port!
        let config = Self.config(port: port, policy: "restore", objects: false)
            .replacingOccurrences(
                of: #"{ registerId: "heating.setpoint", address: 101, type: "s16" },"#,
                with: """
                    { registerId: "heating.setpoint", address: 101, type: "s16" },
                    { registerId: "heating.configured", address: 102, type: "u16", access: "ro" },
                    """)
            .replacingOccurrences(
                of: #"{ id: "heating", identity"#,
                with: #"{ id: "heating", resetMarker: { registerId: "heating.configured", value: 0 }, identity"#)
        XCTAssertTrue(config.contains("resetMarker") && config.contains("heating.configured"), config)
        let daemon = try DaemonHarness(config: config)
        try prepare(daemon)

        // The factory's values with the marker still saying "configured": someone else's change, never restored.
        let factory: [Int: [UInt16]] = [100: [1], 101: [100]]
        var changed = factory
        changed[102] = [1]
        let b = try swap(a) { try press(port: port, serial: 123_456, values: changed) }
        XCTAssertTrue(
            daemon.stderrContains("machine press: changedElsewhere (heating: heating.mode, heating.setpoint)", timeout: 20),
            daemon.stderr)
        let polled = try b.arrivals().count
        XCTAssertTrue(eventually(timeout: 10) { ((try? b.arrivals().count) ?? 0) >= polled + 6 })
        XCTAssertEqual(try b.writes().count, 0)

        // The same values, the marker 0: a factory reset by the marker alone, restored by the policy.
        var reset = factory
        reset[102] = [0]
        let c = try swap(b) { try press(port: port, serial: 123_456, values: reset) }
        XCTAssertTrue(daemon.stderrContains("machine press: factoryReset (heating)", timeout: 20), daemon.stderr)
        XCTAssertTrue(
            eventually(timeout: 20) { (try? Mbpoll.readHolding(port: port, unit: 1, address: 100, count: 2)) == [2, 215] })
        XCTAssertTrue(daemon.stderrContains("machine press: restored (heating succeeded)"), daemon.stderr)
        XCTAssertEqual(try c.writes().map(\.values), [[2, 215]], "the page's registers only, v1's values")
        XCTAssertEqual(try Mbpoll.readHolding(port: port, unit: 1, address: 102, count: 1), [0], "the marker is not written")
        let jobs = try restoreJobs(daemon)
        XCTAssertEqual(jobs.count, 1)
        XCTAssertTrue(eventually(timeout: 10) { ((try? self.restoreJobs(daemon)) ?? []).first?.state == .finished })
        XCTAssertEqual(try restoreJobs(daemon).first?.applyAll?.succeeded, true)
        // The marker outlives the restore (this press never clears it): the page holds what was applied, so it is
        // not at factory values again — more polls, no second restore, no more writes.
        XCTAssertTrue(daemon.stderrContains("machine press: factoryReset resolved"), daemon.stderr)
        let restored = try c.arrivals().count
        XCTAssertTrue(eventually(timeout: 10) { ((try? c.arrivals().count) ?? 0) >= restored + 6 })
        XCTAssertEqual(try c.writes().count, 1)
        XCTAssertEqual(try restoreJobs(daemon).count, 1)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// The operator's restore (the console banner's: `POST /v1/devices/{id}/apply` with `versions: "lastVerified"`)
    /// writes what the policy's would: each page's version last verified on the device, not the latest. v1 is applied
    /// and verified; v2 (a later capture, setpoint 230) is never applied to the press; a page never applied has
    /// nothing to restore. The dry run says which version per page and why; the write carries v1; mbpoll reads it.
    func testTheOperatorsRestoreWritesTheLastVerifiedVersionNotTheLatest() throws {
        let a = try press(serial: 123_456, values: [100: [2], 101: [215]])
        let port = a.port!
        let config = Self.config(port: port, policy: "notify", objects: false)
            .replacingOccurrences(of: #"pages: ["heating"]"#, with: #"pages: ["heating", "extra"]"#)
            .replacingOccurrences(
                of: "  ],\n}",
                with: """
                    { id: "extra", registers: [ { registerId: "extra.limit", address: 200, type: "u16" } ] },
                  ],
                }
                """)
        XCTAssertTrue(config.contains(#"id: "extra""#), config)
        let daemon = try DaemonHarness(config: config)
        try prepare(daemon)
        // v2: a later capture (someone set 230 at the press), never applied to it by Lastset.
        try Mbpoll.writeHolding(port: port, unit: 1, address: 101, values: [230])
        let capture = try daemon.cli(["capture", "heating", "--from", "press"])
        XCTAssertEqual(capture.status, 0, capture.stdout + capture.stderr)
        let latest = try daemon.decode(Template.self, try daemon.api("GET", "/v1/pages/heating/templates/latest"))
        XCTAssertEqual(latest.versionId.id, "2")

        // A blank replacement: found (notify), nothing written by the policy.
        let b = try swap(a) { try press(port: port, serial: 7, values: Self.blank) }
        XCTAssertTrue(daemon.stderrContains("machine press: replaced (serial)", timeout: 20), daemon.stderr)
        XCTAssertEqual(try b.writes().count, 0)

        // The dry run: heating v1 (last verified), with why; extra has nothing to restore.
        let dry = try daemon.decode(
            JobInfo.self,
            try daemon.api("POST", "/v1/devices/press/apply?wait=1", #"{"dryRun":true,"versions":"lastVerified"}"#))
        let planned = try XCTUnwrap(dry.applyAll, dry.error ?? "no report")
        XCTAssertEqual(planned.pages.map(\.pageId), ["heating", "extra"])
        XCTAssertEqual(planned.pages.map(\.status), [.planned, .nothingToRestore])
        XCTAssertEqual(planned.pages[0].versionId, "1")
        XCTAssertEqual(planned.pages[0].restore?.reason, .lastVerified)
        XCTAssertEqual(planned.pages[0].restore?.latestVersionId, "2")
        XCTAssertTrue(
            planned.pages[0].restore?.explanation.contains("the latest, v2, is not what press was last verified with")
                ?? false, "\(planned.pages[0])")
        XCTAssertEqual(planned.pages[1].restore?.reason, .neverVerified)
        XCTAssertEqual(planned.pages[1].error, "nothing to restore: no version of extra was ever verified on press")
        XCTAssertTrue(planned.succeeded)
        // The same dry run without `versions` plans the latest (the plain whole-machine apply is unchanged).
        let plain = try daemon.decode(
            JobInfo.self, try daemon.api("POST", "/v1/devices/press/apply?wait=1", #"{"dryRun":true}"#))
        XCTAssertEqual(plain.applyAll?.pages.first?.versionId, "2")
        XCTAssertNil(plain.applyAll?.pages.first?.restore)
        // The CLI's restore (`apply --all --last-verified`) plans the same, and says why.
        let cli = try daemon.cli(["apply", "--all", "--to", "press", "--last-verified", "--dry-run"])
        XCTAssertEqual(cli.status, 0, cli.stdout + cli.stderr)
        XCTAssertTrue(cli.stdout.contains("the latest, v2, is not what press was last verified with"), cli.stdout)
        XCTAssertTrue(cli.stdout.contains("nothingToRestore"), cli.stdout)
        XCTAssertTrue(
            cli.stdout.split(separator: "\n").contains { $0.hasPrefix("heating ") && $0.contains(" v1 ") }, cli.stdout)
        XCTAssertEqual(try b.writes().count, 0, "dry runs write nothing")

        // The write, pinned to what the dry run showed: v1 written and verified; mbpoll reads v1's values.
        let done = try daemon.decode(
            JobInfo.self,
            try daemon.api(
                "POST", "/v1/devices/press/apply?wait=1",
                #"{"versions":"lastVerified","expectVersions":{"heating":"1"}}"#))
        let written = try XCTUnwrap(done.applyAll, done.error ?? "no report")
        XCTAssertEqual(written.pages.map(\.status), [.succeeded, .nothingToRestore])
        XCTAssertEqual(written.pages[0].versionId, "1")
        XCTAssertEqual(try Mbpoll.readHolding(port: port, unit: 1, address: 100, count: 2), [2, 215])
        XCTAssertEqual(try b.writes().map(\.values), [[2, 215]], "only heating's registers, v1's values")
        let replay = try XCTUnwrap(daemon.auditRecords().last { $0.kind == .replay })
        XCTAssertEqual(replay.templateVersionId, "1")
        XCTAssertEqual(replay.result, .succeeded)
        // A pin the choice no longer meets is refused before any frame.
        let stale = try daemon.api(
            "POST", "/v1/devices/press/apply?wait=1", #"{"versions":"lastVerified","expectVersions":{"heating":"2"}}"#)
        XCTAssertEqual(stale.status, 409)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// Never while another job holds the machine: a capture asked for during the poll that finds the replacement holds
    /// the machine first; the restore waits (pending) and runs at the next poll after the capture.
    func testARestoreWaitsWhileAnotherJobHoldsTheMachine() throws {
        let a = try press(serial: 123_456, values: [100: [2], 101: [215]])
        let port = a.port!
        // Slow reads of the page (1.5 s) within the device's timeout (3 s): each poll holds the machine that long.
        let daemon = try DaemonHarness(
            config: Self.config(port: port, policy: "restore", objects: false, quirks: #"{ timeout: "3s" }"#))
        try prepare(daemon)
        // The replacement answers reads of the page slowly: each poll holds it for 1.5 s.
        let b = try swap(a) {
            var words = Self.blank
            words[0] = [200]
            words[1] = [0, 7]
            let p = try PymodbusPeer.startTCP(port: port, options: ["--delay", "100:1500"], values: words)
            self.peers.append(p)
            return p
        }
        // A poll's page read has reached the press: a capture asked for now holds the machine from now on, and runs
        // once the poll ends.
        XCTAssertTrue(eventually(timeout: 20) { ((try? b.arrivals()) ?? []).contains { $0.address == 100 } })
        let capture = try PeerProcess.start(
            try TestPaths.executable("lastset"), ["--socket", daemon.socketPath, "capture", "heating", "--from", "press"],
            readyPrefix: nil)
        defer { capture.terminate() }
        XCTAssertTrue(daemon.stderrContains("machine press: restore waits", timeout: 20), daemon.stderr)
        XCTAssertTrue(daemon.stderrContains("machine press: restored (heating succeeded)", timeout: 40), daemon.stderr)
        // From the press's side: the restore's write, and mbpoll reads the setpoint back (address 100 answers slower
        // than mbpoll waits).
        XCTAssertEqual(try b.writes().map(\.values), [[2, 215]])
        XCTAssertEqual(try Mbpoll.readHolding(port: port, unit: 1, address: 101, count: 1), [215])
        XCTAssertTrue(eventually(timeout: 10) { capture.hasExited })
        let jobs = try daemon.decode([JobInfo].self, try daemon.api("GET", "/v1/jobs"))
        let restore = try XCTUnwrap(jobs.first { $0.who == ReplacementPolicy.principal })
        // The capture asked for during the poll (the newest capture: prepare's came first).
        let held = try XCTUnwrap(jobs.first { $0.kind == .capture && $0.finishedAt != nil })
        XCTAssertGreaterThanOrEqual(
            restore.startedAt, try XCTUnwrap(held.finishedAt), "the restore started after the capture ended")
        XCTAssertEqual(try restoreJobs(daemon).count, 1)
        XCTAssertEqual(daemon.stop(), 0)
    }
}
