import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// The one admission decision (`TemplateAdmission`) through the real daemon against lastset-sim devices that
/// log every write frame: a template entry whose register layout changed since capture, and a template file
/// whose `value` disagrees with its `valueData`, are refused before any frame (issue 19, defects 2 and 3).
final class AdmissionEndToEndTests: XCTestCase {
    private var sims: [SimulatorProcess] = []
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory(prefix: "admission")
    }

    override func tearDown() {
        for s in sims { s.stop() }
        sims = []
        try? FileManager.default.removeItem(at: dir)
    }

    /// The page, with `heating.energy`'s word order and any extra registers.
    private static func page(energyWordOrder: String = "little", extra: String = "") -> String {
        """
          pages: [
            {
              id: "heating", title: "Heating",
              registers: [
                { registerId: "heating.mode", address: 100, type: "u16", enum: [0, 1, 2] },
                { registerId: "heating.setpoint", address: 101, type: "s16", min: -200, max: 900, scale: 0.1, unit: "°C" },
                { registerId: "heating.energy", address: 102, type: "u32", wordOrder: "\(energyWordOrder)" },
                { registerId: "heating.label", address: 110, type: "string(16)" },
                \(extra)
              ],
            },
          ],
        """
    }

    private static func config(a: Int, b: Int, energyWordOrder: String = "little", extra: String = "", poll: String? = nil)
        -> String
    {
        """
        { version: 1,
          devices: [
            { id: "press-a", endpoint: "tcp://127.0.0.1:\(a)", unit: 1, pages: ["heating"] },
            { id: "press-b", endpoint: "tcp://127.0.0.1:\(b)", unit: 1, pages: ["heating"]\(poll.map { ", poll: \"\($0)\"" } ?? "") },
          ],
        \(page(energyWordOrder: energyWordOrder, extra: extra))
        }
        """
    }

    /// press-a holding the reference values, press-b blank (every register "not set"), both logging writes.
    private func presses() throws -> (a: SimulatorProcess, b: SimulatorProcess) {
        let simConfig = dir.appendingPathComponent("sim.json")
        try Self.config(a: 9, b: 9).write(to: simConfig, atomically: true, encoding: .utf8)
        let values = dir.appendingPathComponent("press-a.values.json")
        try #"{"heating.mode": 2, "heating.setpoint": -150, "heating.energy": 123456, "heating.label": "Line 3"}"#.write(
            to: values, atomically: true, encoding: .utf8)
        let a = try SimulatorProcess.start([
            "--config", simConfig.path, "--device", "press-a", "--tcp", "127.0.0.1:0", "--values", values.path, "--log-writes",
        ])
        sims.append(a)
        let b = try SimulatorProcess.start([
            "--config", simConfig.path, "--device", "press-b", "--tcp", "127.0.0.1:0", "--log-writes",
        ])
        sims.append(b)
        return (a, b)
    }

    private func job(_ daemon: DaemonHarness, _ body: String) throws -> JobInfo {
        let r = try daemon.api("POST", "/v1/pages/heating/apply?wait=1", body)
        XCTAssertEqual(r.status, 200, r.text)
        return try daemon.decode(JobInfo.self, r)
    }

    /// Defect 2: `heating.energy` changes from little to big word order (config edit + reload). The template
    /// captured under little word order must not be written raw: the dry run and the apply are refused before
    /// any frame, naming the register and the change. A page that merely gained a register still replays.
    func testAnEntryWhoseLayoutChangedIsRefusedBeforeAnyFrameAndAPageThatGainedARegisterStillReplays() throws {
        let (a, b) = try presses()
        let daemon = try DaemonHarness(config: Self.config(a: a.port!, b: b.port!))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)

        try Self.config(a: a.port!, b: b.port!, energyWordOrder: "big").write(
            to: daemon.configURL, atomically: true, encoding: .utf8)
        let reload = try daemon.cli(["reload"])
        XCTAssertEqual(reload.status, 0, reload.stderr)

        let change = "heating.energy: layout changed since capture: wordOrder little → big"
        for body in [#"{"device":"press-b","dryRun":true}"#, #"{"device":"press-b"}"#] {
            let replay = try XCTUnwrap(try job(daemon, body).replay, body)
            XCTAssertEqual(replay.status, .refused, "\(body): \(replay.reason ?? "")")
            XCTAssertTrue(replay.reason?.contains(change) ?? false, "\(body): \(replay.reason ?? "nil")")
            XCTAssertEqual(replay.writeFrames, 0, body)
        }
        let diff = try daemon.api("GET", "/v1/pages/heating/diff?device=press-b")
        XCTAssertTrue(diff.text.contains("wordOrder little → big"), diff.text)
        // The device's side: not one write frame, and it still holds "not set".
        XCTAssertEqual(b.writeLines, [])
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 102, count: 2), [0xFFFF, 0xFFFF])
        let refused = try daemon.auditRecords().filter { $0.kind == .replay }
        XCTAssertEqual(refused.map(\.result), [.refused])
        XCTAssertTrue(refused.first?.message?.contains(change) ?? false, refused.first?.message ?? "nil")

        // Back to the captured layout, and the page gains a register: the template's entries still fit.
        try Self.config(
            a: a.port!, b: b.port!, extra: #"{ registerId: "heating.boost", address: 140, type: "u16" },"#
        ).write(to: daemon.configURL, atomically: true, encoding: .utf8)
        XCTAssertEqual(try daemon.cli(["reload"]).status, 0)
        let replay = try XCTUnwrap(try job(daemon, #"{"device":"press-b"}"#).replay)
        XCTAssertEqual(replay.status, .succeeded, replay.reason ?? "")
        XCTAssertTrue(replay.warnings.contains { $0.contains("page definition changed since capture") }, "\(replay.warnings)")
        XCTAssertEqual(
            replay.registers.map(\.registerId), ["heating.mode", "heating.setpoint", "heating.energy", "heating.label"])
        XCTAssertEqual(replay.registers.first { $0.registerId == "heating.energy" }?.expected, .unsigned(123456))
        XCTAssertEqual(
            try Mbpoll.readHolding(port: b.port!, unit: 1, address: 100, count: 4), [2, UInt16(bitPattern: -150), 0xE240, 0x0001])
        XCTAssertFalse(b.writeLines.isEmpty)
        XCTAssertFalse(b.writeLines.contains { $0.contains("address=140") }, "\(b.writeLines)")
        let applied = try daemon.auditRecords().filter { $0.kind == .replay }.last
        XCTAssertEqual(applied?.result, .succeeded)
        XCTAssertEqual(applied?.registers.first { $0.registerId == "heating.energy" }?.written, .unsigned(123456))
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// Conformance: the applied words are compared; a drifted register's EXPECTED is those words decoded with the
    /// page as it is now (here after `heating.energy` became big word order), like its live value beside it.
    func testDriftShowsTheAppliedWordsDecodedWithTheCurrentPage() throws {
        let (a, b) = try presses()
        let daemon = try DaemonHarness(config: Self.config(a: a.port!, b: b.port!, poll: "100ms"))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)
        XCTAssertEqual(try job(daemon, #"{"device":"press-b"}"#).replay?.status, .succeeded)
        try Self.config(a: a.port!, b: b.port!, energyWordOrder: "big", poll: "100ms").write(
            to: daemon.configURL, atomically: true, encoding: .utf8)
        XCTAssertEqual(try daemon.cli(["reload"]).status, 0)
        try Mbpoll.writeHolding(port: b.port!, unit: 1, address: 102, values: [0, 1])
        let end = Date().addingTimeInterval(10)
        var drifted: DriftedRegister?
        while Date() < end && drifted == nil {
            let list = try daemon.decode([PageConformance].self, try daemon.api("GET", "/v1/conformance?page=heating"))
            drifted = list.first { $0.device == "press-b" }?.drifted.first { $0.registerId == "heating.energy" }
            if drifted == nil { usleep(20_000) }
        }
        let energy = try XCTUnwrap(drifted, "no drift seen on heating.energy")
        XCTAssertEqual(energy.expectedData, "E2400001")
        XCTAssertEqual(energy.expected, .unsigned(3_795_845_121), "the applied words under the page's big word order")
        XCTAssertEqual(energy.liveData, "00000001")
        XCTAssertEqual(energy.live, .unsigned(1))
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// A page that lost a register still replays the rest (the entry is left out, named in a warning, and no
    /// frame touches its address), and the applied state — also when rebuilt from the audit log — holds only the
    /// registers written, so polling says the page conforms.
    func testAPageThatLostARegisterReplaysTheRestAndConformsAfterARebuild() throws {
        let (a, b) = try presses()
        let daemon = try DaemonHarness(config: Self.config(a: a.port!, b: b.port!, poll: "100ms"))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)
        let without = Self.config(a: a.port!, b: b.port!, poll: "100ms").replacingOccurrences(
            of: #"{ registerId: "heating.label", address: 110, type: "string(16)" },"#, with: "")
        XCTAssertFalse(without.contains("heating.label"))
        try without.write(to: daemon.configURL, atomically: true, encoding: .utf8)
        XCTAssertEqual(try daemon.cli(["reload"]).status, 0)
        // The reload's READY=1, taken now so that the restart below waits for its own.
        XCTAssertTrue(daemon.notify.wait(for: "READY=1", timeout: 5).found)
        let replay = try XCTUnwrap(try job(daemon, #"{"device":"press-b"}"#).replay)
        XCTAssertEqual(replay.status, .succeeded, replay.reason ?? "")
        XCTAssertTrue(
            replay.warnings.contains("left out, not written (no longer registers of page \"heating\"): heating.label"),
            "\(replay.warnings)")
        XCTAssertEqual(replay.registers.map(\.registerId), ["heating.mode", "heating.setpoint", "heating.energy"])
        XCTAssertFalse(b.writeLines.isEmpty)
        XCTAssertFalse(b.writeLines.contains { $0.contains("address=110") }, "\(b.writeLines)")
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 110, count: 1), [0xFFFF])

        func conformance() throws -> PageConformance {
            let end = Date().addingTimeInterval(10)
            var last: PageConformance?
            while Date() < end {
                let list = try daemon.decode([PageConformance].self, try daemon.api("GET", "/v1/conformance?page=heating"))
                last = list.first { $0.device == "press-b" }
                if let last, last.state != .unknown || last.reason?.contains("not read") == true { return last }
                usleep(20_000)
            }
            throw TestSupportError("press-b was never judged; last: \(String(describing: last))")
        }
        XCTAssertEqual(try conformance().state, .conforms)
        // The device state lost: rebuilt from the audit log at the next start, with only what was written.
        XCTAssertEqual(daemon.stop(), 0)
        try SQLiteShell.write(daemon.dataDir.appendingPathComponent("lastset.db"), "DELETE FROM device_page_state")
        try daemon.restart()
        let rebuilt = try conformance()
        XCTAssertEqual(rebuilt.state, .conforms, rebuilt.reason ?? "")
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// Defect 3: a template file edited to `"value": -150, "valueData": "0384"` (checksum recomputed) would show
    /// −15.0 °C everywhere while 90.0 °C is written. The import refuses it naming the register and both values;
    /// the same file already in the archive is refused by the replay before any frame.
    func testAFileWhoseValueDisagreesWithItsValueDataIsRefusedAtImportAndAtReplay() throws {
        let (a, b) = try presses()
        let daemon = try DaemonHarness(config: Self.config(a: a.port!, b: b.port!))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)
        let exported = try daemon.api("GET", "/v1/pages/heating/templates/1/file")
        XCTAssertEqual(exported.status, 200)
        let original = #""registerId":"heating.setpoint","value":-150,"valueData":"FF6A""#
        XCTAssertTrue(String(decoding: exported.body, as: UTF8.self).contains(original))
        let edited = try resignedTemplateFile(
            exported.body, replacing: original, with: #""registerId":"heating.setpoint","value":-150,"valueData":"0384""#)

        let imported = try daemon.api("POST", "/v1/pages/heating/templates", edited)
        XCTAssertEqual(imported.status, 422, imported.text)
        XCTAssertTrue(imported.text.contains("invalid_template"), imported.text)
        XCTAssertTrue(
            imported.text.contains("heating.setpoint: value -150 is not what valueData 0384 holds (900)"), imported.text)
        let listing = try daemon.decode([TemplateListing].self, try daemon.api("GET", "/v1/pages/heating/templates"))
        XCTAssertEqual(listing.map(\.version), [1], "nothing archived")
        XCTAssertFalse(try daemon.auditRecords().contains { $0.kind == .import && $0.result == .archived })

        // The same file placed in the archive (a row from before the check, or written by hand with sqlite3).
        let stored = daemon.dir.appendingPathComponent("v000002.json")
        try Data(try resignedTemplateFile(Array(edited.utf8), replacing: #""version":1"#, with: #""version":2"#).utf8).write(
            to: stored)
        try SQLiteShell.write(
            daemon.dataDir.appendingPathComponent("lastset.db"),
            "INSERT INTO template_version (page_id, host, number, archived_at, file) VALUES ('heating', '', 2, NULL, readfile('\(stored.path)'))"
        )
        for body in [#"{"device":"press-b","version":2,"dryRun":true}"#, #"{"device":"press-b","version":2}"#] {
            let replay = try XCTUnwrap(try job(daemon, body).replay, body)
            XCTAssertEqual(replay.status, .refused, "\(body): \(replay.reason ?? "")")
            XCTAssertTrue(
                replay.reason?.contains("heating.setpoint: value -150 is not what valueData 0384 holds (900)") ?? false,
                "\(body): \(replay.reason ?? "nil")")
        }
        XCTAssertEqual(b.writeLines, [], "not one frame")
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 101, count: 1), [0x7FFF])
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// Fleet adoption: a host whose page has `heating.energy` in big word order adopts another host's version
    /// captured under little word order. It is kept (history) but shown as not applicable here — in the sync
    /// report, the listing, `show` and health — and a replay of it is refused before any frame.
    func testAFleetVersionCapturedAgainstAnotherLayoutIsKeptButNotApplicableHere() throws {
        let hub = try HubRepository()
        let url = try hub.serve()
        let ref = try PymodbusPeer.startTCP(values: DaemonEndToEndTests.reference)
        let blank = try PymodbusPeer.startTCP(values: DaemonEndToEndTests.blank)
        defer {
            ref.stop()
            blank.stop()
        }
        func config(host: String, pages: String) -> String {
            """
            { version: 1,
              fleet: { remote: "\(url)", interval: "0s", host: "\(host)" },
              devices: [
                { id: "press-ref", endpoint: "tcp://127.0.0.1:\(ref.port!)", unit: 1, pages: ["heating"] },
                { id: "press-new", endpoint: "tcp://127.0.0.1:\(blank.port!)", unit: 1, pages: ["heating"] },
              ],
            \(pages)
            }
            """
        }
        let big = DaemonEndToEndTests.pages.replacingOccurrences(of: #"wordOrder: "little""#, with: #"wordOrder: "big""#)
        XCTAssertNotEqual(big, DaemonEndToEndTests.pages)
        // Each host's own sync at start is finished before the test syncs (what comes in is then this test's).
        func started(_ config: String) throws -> DaemonHarness {
            let host = try DaemonHarness(config: config)
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if try host.decode(HealthInfo.self, try host.api("GET", "/v1/health")).fleet?.lastSync != nil { return host }
                usleep(20_000)
            }
            throw TestSupportError("the daemon's first fleet sync did not finish; stderr:\n\(host.stderr)")
        }
        let a = try started(config(host: "line-a", pages: DaemonEndToEndTests.pages))
        let b = try started(config(host: "line-b", pages: big))
        XCTAssertEqual(try a.cli(["capture", "heating", "--from", "press-ref"]).status, 0)
        XCTAssertEqual(try a.cli(["sync"]).status, 0)
        let synced = try b.cli(["--json", "sync"])
        let report = try APICoding.decoder().decode(SyncReport.self, from: Data(synced.stdout.utf8))
        XCTAssertEqual(report.result, .ok, report.message ?? "")
        XCTAssertEqual(report.templatesIn, ["heating/line-a-1"], "kept: it is history")
        // Refused entry by entry, and as another host's version captured against another definition.
        let layout = "heating.energy: layout changed since capture: wordOrder little → big"
        let definition =
            "version line-a-1 of line-a was captured against another definition of page \"heating\": another host's version is written here only under that definition (lastset fleet page heating --take)"
        let why = "\(layout); \(definition)"
        XCTAssertEqual(report.notApplicable, ["heating/line-a-1: not applicable here: \(why)"])

        let listing = try b.decode([TemplateListing].self, try b.api("GET", "/v1/pages/heating/templates"))
        XCTAssertEqual(listing.map(\.id), ["line-a-1"])
        XCTAssertEqual(listing.first?.applicable, false)
        XCTAssertEqual(listing.first?.notApplicable, "not applicable here: \(why)")
        let table = try b.cli(["templates", "heating"])
        XCTAssertTrue(table.stdout.contains("not applicable here: \(why)"), table.stdout)
        let shown = try b.decode(ShownTemplate.self, try b.api("GET", "/v1/pages/heating/templates/line-a-1"))
        XCTAssertEqual(shown.applicableHere, TemplateApplicability(applicable: false, refused: [layout, definition], leftOut: []))
        let show = try b.cli(["show", "heating", "--version", "line-a-1"])
        XCTAssertTrue(
            show.stdout.contains("applicable") && show.stdout.contains(layout) && show.stdout.contains(definition), show.stdout)
        // A's own listing: its version applies to its page.
        let own = try a.decode([TemplateListing].self, try a.api("GET", "/v1/pages/heating/templates"))
        XCTAssertEqual(own.map(\.applicable), [true])

        let health = try b.decode(HealthInfo.self, try b.api("GET", "/v1/health"))
        let difference = try XCTUnwrap(health.fleet?.differingPages?.first, "\(String(describing: health.fleet))")
        XCTAssertEqual(difference.pageId, "heating")
        XCTAssertEqual(difference.host, "line-a")
        XCTAssertEqual(difference.version, "line-a-1")
        XCTAssertFalse(difference.applicable)
        XCTAssertEqual(difference.reason, "not applicable here: \(why)")
        let status = try b.cli(["status"])
        XCTAssertTrue(status.stdout.contains("page differs") && status.stdout.contains("line-a"), status.stdout)

        let apply = try b.cli(["apply", "heating", "--to", "press-new", "--version", "line-a-1"])
        XCTAssertEqual(apply.status, 1, apply.stdout)
        XCTAssertTrue(apply.stdout.contains(why), apply.stdout)
        XCTAssertEqual(try blank.writes(), [], "not one frame")
        XCTAssertEqual(try Mbpoll.readHolding(port: blank.port!, unit: 1, address: 102, count: 2), [0xFFFF, 0xFFFF])
        XCTAssertEqual(a.stop(), 0)
        XCTAssertEqual(b.stop(), 0)
    }
}
