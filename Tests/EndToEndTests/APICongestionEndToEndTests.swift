import Foundation
import Glibc
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// Issue 19, defect 15: anyone in the socket group could lock the API up. 64 connections to the Unix socket, each
/// dribbling one header line now and then, took every slot: health failed, the watchdog (a request through the
/// socket) stopped pinging, and under systemd the daemon was aborted — killing any replay writing at that moment.
/// Checked against the real daemon, a slow-loris client run as another user (setpriv, uid 65534), lastset-sim and
/// mbpoll.
final class APICongestionEndToEndTests: XCTestCase {
    private var stops: [() -> Void] = []

    override func tearDown() {
        for s in stops.reversed() { s() }
        stops = []
    }

    private func config(a: Int, b: Int, api: String = "") -> String {
        """
        { version: 1, \(api)
          devices: [
            { id: "press-a", endpoint: "tcp://127.0.0.1:\(a)", unit: 1, pages: ["heating"] },
            { id: "press-b", endpoint: "tcp://127.0.0.1:\(b)", unit: 1, pages: ["heating"], quirks: { timeout: "2s" } },
          ],
        \(DaemonEndToEndTests.pages)
        }
        """
    }

    /// press-a holding the reference values, press-b blank and slow (every answer `delayMs` late), logging writes.
    private func presses(delayMs: Int) throws -> (a: SimulatorProcess, b: SimulatorProcess) {
        let dir = try TestPaths.temporaryDirectory(prefix: "congestion")
        stops.append { try? FileManager.default.removeItem(at: dir) }
        let simConfig = dir.appendingPathComponent("sim.json")
        try config(a: 9, b: 9).write(to: simConfig, atomically: true, encoding: .utf8)
        let values = dir.appendingPathComponent("press-a.values.json")
        try
            #"{"heating.mode": 2, "heating.setpoint": -150, "heating.energy": 123456, "heating.label": "Line 3", "model": "PRS-200"}"#
            .write(to: values, atomically: true, encoding: .utf8)
        let blank = dir.appendingPathComponent("press-b.values.json")
        try #"{"model": "PRS-200"}"#.write(to: blank, atomically: true, encoding: .utf8)
        let a = try SimulatorProcess.start([
            "--config", simConfig.path, "--device", "press-a", "--tcp", "127.0.0.1:0", "--values", values.path,
        ])
        stops.append { a.stop() }
        let b = try SimulatorProcess.start([
            "--config", simConfig.path, "--device", "press-b", "--tcp", "127.0.0.1:0", "--values", blank.path, "--log-writes",
            "--delay-ms", "\(delayMs)",
        ])
        stops.append { b.stop() }
        return (a, b)
    }

    /// `slow_client.py` on the daemon's socket as uid 65534 (gid 0, so the socket's 0660 lets it in).
    private func slowClient(_ daemon: DaemonHarness, count: Int, interval: Double, body: Bool = false, asRoot: Bool = false)
        throws -> PeerProcess
    {
        let script = TestPaths.peersDirectory.appendingPathComponent("slow_client.py").path
        let arguments = [script, daemon.socketPath, "\(count)", "\(interval)"] + (body ? ["--body"] : [])
        let p =
            asRoot
            ? try PeerProcess.start(URL(fileURLWithPath: "/usr/bin/python3"), arguments)
            : try PeerProcess.start(
                URL(fileURLWithPath: "/usr/bin/setpriv"),
                ["--reuid=65534", "--regid=0", "--clear-groups", "/usr/bin/python3"] + arguments)
        stops.append { p.terminate() }
        return p
    }

    /// `GET /v1/health` as root with a short client bound; the status, or the client's error.
    private func health(_ daemon: DaemonHarness) -> String {
        do {
            let r = try HTTPClient(endpoint: .unix(path: daemon.socketPath), timeout: .seconds(2)).send(
                method: "GET", path: "/v1/health")
            return "\(r.status)"
        } catch {
            return "\(error)"
        }
    }

    /// 64 slow connections from one user while a replay runs: that user gets at most its share of the socket
    /// (the rest are answered 503 at once), health answers root within 2 s throughout, the watchdog keeps pinging,
    /// and the replay completes — what the device holds, read with mbpoll.
    func testSlowConnectionsFromOneUserLeaveHealthTheWatchdogAndARunningReplayAlone() throws {
        let (a, b) = try presses(delayMs: 300)
        let daemon = try DaemonHarness(config: config(a: a.port!, b: b.port!), environment: ["WATCHDOG_USEC": "400000"])
        XCTAssertTrue(daemon.notify.wait(for: "WATCHDOG=1", timeout: 3).found, "no watchdog ping while healthy")
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)
        let started = try daemon.api("POST", "/v1/pages/heating/apply", #"{"device":"press-b"}"#)
        XCTAssertEqual(started.status, 202, started.text)
        let job = try daemon.decode(JobInfo.self, started)

        let loris = try slowClient(daemon, count: 64, interval: 0.5)
        let writesBefore = b.writeLines.count
        let answered = loris.waitForLines(count: 56, timeout: 10) { $0.hasPrefix("ANSWERED ") }
        XCTAssertEqual(answered.count, 56, "connections beyond uid 65534's share were not refused: \(loris.stdoutLines)")
        XCTAssertTrue(
            answered.allSatisfy { $0.hasSuffix(" 503 too_many_connections") }, "\(answered)")
        for _ in 0..<5 {
            let begin = Date()
            XCTAssertEqual(health(daemon), "200", "health while one user holds slow connections")
            XCTAssertLessThan(Date().timeIntervalSince(begin), 2)
            _ = daemon.notify.wait(for: "drain", timeout: 0.05)
            XCTAssertTrue(daemon.notify.wait(for: "WATCHDOG=1", timeout: 1).found, "the watchdog stopped pinging")
        }
        XCTAssertFalse(daemon.stderr.contains("watchdog pings stopped"), daemon.stderr)
        // The refused ones are closed after their answer; the 8 admitted ones stay open until the request timeout.
        let refusedConnections = Set(answered.map { $0.split(separator: " ")[1] })
        let closedEarly = loris.stdoutLines.filter {
            $0.hasPrefix("CLOSED ") && !refusedConnections.contains($0.split(separator: " ")[1])
        }
        XCTAssertTrue(
            closedEarly.isEmpty, "a slow connection within its share was cut before the request timeout: \(closedEarly)")

        let during = try daemon.decode(JobInfo.self, try daemon.api("GET", "/v1/jobs/\(job.id)"))
        XCTAssertEqual(during.state, .running, "the replay did not run through the congestion (raise the device's delay)")
        var finished: JobInfo?
        let end = Date().addingTimeInterval(60)
        while finished == nil, Date() < end {
            let j = try daemon.decode(JobInfo.self, try daemon.api("GET", "/v1/jobs/\(job.id)"))
            if j.state == .finished { finished = j } else { usleep(50_000) }
        }
        XCTAssertEqual(finished?.replay?.status, .succeeded, "\(String(describing: finished?.replay))")
        XCTAssertEqual(
            try Mbpoll.readHolding(port: b.port!, unit: 1, address: 100, count: 4), [2, UInt16(bitPattern: -150), 0xE240, 0x0001])
        XCTAssertTrue(
            b.writeLines.contains { $0.contains("address=2304") }, "the commit step never reached press-b: \(b.writeLines)")
        XCTAssertGreaterThan(b.writeLines.count, writesBefore, "no write reached press-b while the socket was congested")
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// A request whose headers (or body) dribble in faster than the silence timeout used to hold its slot for as
    /// long as the client liked. The whole request must arrive within `api.requestTimeout`; past it the connection
    /// is closed and the log says whose it was. `api.socketConnectionsPerUser` sets a user's share of the socket.
    func testARequestThatDribblesIsCutAfterTheRequestTimeoutAndTheShareIsConfigurable() throws {
        let (a, b) = try presses(delayMs: 0)
        let daemon = try DaemonHarness(
            config: config(a: a.port!, b: b.port!, api: #"api: { requestTimeout: "2s", socketConnectionsPerUser: 2 },"#))
        let headers = try slowClient(daemon, count: 3, interval: 0.4)
        let refused = headers.waitForLines(count: 1, timeout: 5) { $0.hasPrefix("ANSWERED ") }
        XCTAssertEqual(refused.map { $0.split(separator: " ").dropFirst(2).joined(separator: " ") }, ["503 too_many_connections"])
        let cut = headers.waitForLines(count: 3, timeout: 10) { $0.hasPrefix("CLOSED ") }
        XCTAssertEqual(cut.count, 3, "\(headers.stdoutLines)")
        let seconds = cut.compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.sorted()
        XCTAssertLessThan(seconds.last ?? 99, 5, "the slow connections were not cut near the 2 s request timeout: \(cut)")
        XCTAssertGreaterThan(seconds.last ?? 0, 1.5, "cut before the request timeout: \(cut)")
        XCTAssertTrue(
            daemon.stderrContains("uid 65534"), "no log line names the slow client:\n\(daemon.stderr)")
        XCTAssertTrue(daemon.stderrContains("api.requestTimeout"), daemon.stderr)

        let body = try slowClient(daemon, count: 1, interval: 0.4, body: true, asRoot: true)
        let bodyCut = body.waitForLines(count: 1, timeout: 10) { $0.hasPrefix("CLOSED ") }
        XCTAssertEqual(bodyCut.count, 1, "a body dribbled in one byte at a time was never cut: \(body.stdoutLines)")
        XCTAssertLessThan(bodyCut.first?.split(separator: " ").last.flatMap { Double($0) } ?? 99, 5, "\(bodyCut)")
        XCTAssertEqual(health(daemon), "200")
        XCTAssertEqual(daemon.stop(), 0)
    }
}
