import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// Issue 19, defect 7: a serial line has one framing (baud, parity, data and stop bits), that of the devices the
/// config puts on it. A job asking for other settings is refused before a frame; a reload that changes the line's
/// settings reopens it once no job holds it, never mid-job. Checked against lastset-sim on a socat pty pair: socat
/// logs every byte the daemon sends, and the pty keeps the speed the daemon set its end to.
final class SerialLineEndToEndTests: XCTestCase {
    private var stops: [() -> Void] = []

    override func tearDown() {
        for s in stops.reversed() { s() }
        stops = []
    }

    private func config(_ line: SocatPair, baud: Int) -> String {
        """
        { version: 1,
          devices: [
            { id: "press-rtu", endpoint: "rtu://\(line.clientPath)?baud=\(baud)", unit: 1, pages: ["heating"],
              quirks: { timeout: "300ms", retries: 0 } },
            { id: "press-rtu2", endpoint: "rtu://\(line.clientPath)?baud=\(baud)", unit: 2, pages: ["heating"],
              quirks: { timeout: "300ms", retries: 0 } },
          ],
        \(DaemonEndToEndTests.pages)
        }
        """
    }

    /// The line and lastset-sim serving press-rtu (unit 1, the reference values) on its far end.
    private func line(delayMs: Int = 0) throws -> (SocatPair, SimulatorProcess) {
        let line = try SocatPair.start(logTraffic: true)
        stops.append { line.stop() }
        let dir = try TestPaths.temporaryDirectory(prefix: "rtu-line")
        stops.append { try? FileManager.default.removeItem(at: dir) }
        let simConfig = dir.appendingPathComponent("sim.json")
        try config(line, baud: 19200).write(to: simConfig, atomically: true, encoding: .utf8)
        let values = dir.appendingPathComponent("values.json")
        try
            #"{"heating.mode": 2, "heating.setpoint": -150, "heating.energy": 123456, "heating.label": "Line 3", "model": "PRS-200"}"#
            .write(to: values, atomically: true, encoding: .utf8)
        let sim = try SimulatorProcess.start([
            "--config", simConfig.path, "--device", "press-rtu", "--rtu", line.serverPath, "--baud", "19200", "--values",
            values.path, "--log-writes", "--delay-ms", "\(delayMs)",
        ])
        stops.append { sim.stop() }
        return (line, sim)
    }

    private func apply(_ daemon: DaemonHarness, _ body: String) throws -> HTTPClientResponse {
        try daemon.api("POST", "/v1/pages/heating/apply?wait=1", body)
    }

    /// An ad-hoc `rtu://…?baud=9600` used to open the line for every configured unit on it when it came first, and
    /// to be written through the configured unit's 19200 line when it came later. It is refused — 409 `line_settings`
    /// naming both settings — with not one byte on the line, and the configured unit still works at its own baud.
    func testAJobWithOtherLineSettingsIsRefusedWithoutAFrameAndTheConfiguredUnitKeepsItsOwn() throws {
        let (line, sim) = try line()
        let daemon = try DaemonHarness(config: config(line, baud: 19200))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-rtu"}"#).status, 200)
        XCTAssertEqual(daemon.stop(), 0)
        // A fresh daemon on the same data: its first job on the line is the ad-hoc one.
        try daemon.restart()
        try line.setClientBaud(4800)
        let before = line.bytesFromClient
        let refused = [
            (#"{"endpoint":"rtu://\#(line.clientPath)?baud=9600","unit":1}"#, "baud=9600 parity=N data=8 stop=1"),
            (#"{"endpoint":"rtu://\#(line.clientPath)?baud=9600","unit":5,"dryRun":true}"#, "baud=9600 parity=N data=8 stop=1"),
            (#"{"endpoint":"rtu://\#(line.clientPath)?baud=19200&parity=E","unit":1}"#, "baud=19200 parity=E data=8 stop=1"),
        ]
        for (body, asked) in refused {
            let r = try apply(daemon, body)
            XCTAssertEqual(r.status, 409, "\(body): \(r.text)")
            XCTAssertTrue(r.text.contains("\"line_settings\""), r.text)
            XCTAssertTrue(r.text.contains(asked) && r.text.contains("baud=19200 parity=N data=8 stop=1"), r.text)
        }
        usleep(200_000)
        XCTAssertEqual(line.bytesFromClient - before, 0, "bytes reached the line for a job with other settings")
        XCTAssertEqual(sim.writeLines, [], "the simulator received writes for a job with other settings")
        XCTAssertEqual(try line.clientBaud(), 4800, "the line was opened with the refused job's settings")

        // The configured unit, at its own baud: the line opens at 19200 and the replay reaches the simulator.
        let replay = try apply(daemon, #"{"device":"press-rtu"}"#)
        XCTAssertEqual(replay.status, 200, replay.text)
        XCTAssertEqual(try daemon.decode(JobInfo.self, replay).replay?.status, .succeeded, replay.text)
        XCTAssertEqual(try line.clientBaud(), 19200, "the configured unit's line is not at its declared baud")
        XCTAssertGreaterThan(line.bytesFromClient, before)
        XCTAssertFalse(sim.writeLines.isEmpty)
        // Ad-hoc at the line's own settings is the configured unit: it runs.
        let same = try apply(daemon, #"{"endpoint":"rtu://\#(line.clientPath)?baud=19200","unit":1,"dryRun":true}"#)
        XCTAssertEqual(same.status, 200, same.text)
        XCTAssertEqual(try daemon.decode(JobInfo.self, same).replay?.status, .planned, same.text)
        XCTAssertEqual(try Mbpoll.readHolding(rtu: line.clientPath, baud: 19200, unit: 1, address: 100, count: 1), [2])
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// A reload that changes a line's baud left the line open at the old baud for good (the pool kept the first
    /// connection). It reopens with the new settings once no job holds the line — never during a running replay,
    /// and a job needing the new settings while one runs at the old ones is refused, not run on the wrong framing.
    func testAReloadThatChangesALinesBaudReopensItOnceNoJobHoldsItNeverMidJob() throws {
        let (line, sim) = try line(delayMs: 150)
        let daemon = try DaemonHarness(config: config(line, baud: 19200))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-rtu"}"#).status, 200)
        try Mbpoll.writeHolding(rtu: line.clientPath, baud: 19200, unit: 1, address: 100, values: [1])
        XCTAssertNotNil(sim.process.waitForLine { $0.hasPrefix("WRITE") && $0.contains("address=100") })
        let writesBefore = sim.writeLines.count
        let started = try daemon.api("POST", "/v1/pages/heating/apply", #"{"device":"press-rtu"}"#)
        XCTAssertEqual(started.status, 202, started.text)
        let job = try daemon.decode(JobInfo.self, started)

        try config(line, baud: 9600).write(to: daemon.configURL, atomically: true, encoding: .utf8)
        let reload = try daemon.cli(["reload"])
        XCTAssertEqual(reload.status, 0, reload.stderr)
        let during = try apply(daemon, #"{"device":"press-rtu2","dryRun":true}"#)
        XCTAssertEqual(during.status, 409, "a job at 9600 while the line runs a replay at 19200: \(during.text)")
        XCTAssertTrue(during.text.contains("\"line_settings\""), during.text)
        XCTAssertTrue(during.text.contains("baud=9600") && during.text.contains("baud=19200"), during.text)
        var speeds = Set<Int>()
        var finished: JobInfo?
        let end = Date().addingTimeInterval(60)
        while finished == nil, Date() < end {
            speeds.insert(try line.clientBaud())
            let j = try daemon.decode(JobInfo.self, try daemon.api("GET", "/v1/jobs/\(job.id)"))
            if j.state == .finished { finished = j } else { usleep(20_000) }
        }
        XCTAssertEqual(finished?.replay?.status, .succeeded, "\(String(describing: finished?.replay))")
        XCTAssertEqual(speeds, [19200], "the line's speed changed during the replay")
        XCTAssertTrue(sim.writeLines.dropFirst(writesBefore).contains { $0.contains("address=100") }, "\(sim.writeLines)")

        // Nothing holds the line now: the next job opens it with the reloaded settings.
        let after = try apply(daemon, #"{"device":"press-rtu","dryRun":true}"#)
        XCTAssertEqual(after.status, 200, after.text)
        XCTAssertEqual(try daemon.decode(JobInfo.self, after).replay?.status, .planned, after.text)
        XCTAssertEqual(try line.clientBaud(), 9600, "the line stayed at its old baud after the reload")
        XCTAssertEqual(try Mbpoll.readHolding(rtu: line.clientPath, baud: 9600, unit: 1, address: 100, count: 1), [2])
        XCTAssertEqual(daemon.stop(), 0)
    }
}
