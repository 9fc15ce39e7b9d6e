import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// `GET /v1/events` with `Last-Event-ID` through the real daemon (issue 23, part 5): a follower whose connection is cut
/// mid-stream (a socat relay between it and the daemon, stopped and started again) reconnects with the last id it read
/// and prints exactly the events it missed, in order — the same list a follower connected all along prints; a client
/// with an id from before a restart gets a `gap` first.
final class EventsReplayEndToEndTests: XCTestCase {
    private var peers: [PymodbusPeer] = []

    override func tearDown() {
        for p in peers { p.stop() }
        peers = []
    }

    private func daemon() throws -> DaemonHarness {
        let press = try PymodbusPeer.startTCP(values: [0: [200], 100: [2], 101: [215]])
        peers.append(press)
        return try DaemonHarness(
            config: """
                { version: 1,
                  devices: [ { id: "press", endpoint: "tcp://127.0.0.1:\(press.port!)", unit: 1, pages: ["heating"] } ],
                  pages: [ { id: "heating", identity: [ { registerId: "model", address: 0, type: "u16" } ],
                             registers: [ { registerId: "heating.mode", address: 100, type: "u16" },
                                          { registerId: "heating.setpoint", address: 101, type: "s16" } ] } ] }
                """)
    }

    private func capture(_ daemon: DaemonHarness) throws {
        let run = try daemon.cli(["capture", "heating", "--from", "press"])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
    }

    private static func events(_ process: PeerProcess) -> [ServerEvent] {
        process.stdoutLines.compactMap { try? APICoding.decoder().decode(ServerEvent.self, from: Data($0.utf8)) }
    }

    /// A relay from `path` to the daemon's socket for one connection (socat ends when it closes).
    private func relay(_ path: String, to daemon: DaemonHarness) throws -> PeerProcess {
        let socat = try PeerProcess.start(
            URL(fileURLWithPath: "/usr/bin/socat"),
            ["UNIX-LISTEN:\(path),unlink-early", "UNIX-CONNECT:\(daemon.socketPath)"], readyPrefix: nil)
        XCTAssertTrue(eventually(timeout: 10) { FileManager.default.fileExists(atPath: path) })
        return socat
    }

    private func follow(_ socket: String) throws -> PeerProcess {
        let process = try PeerProcess.start(
            try TestPaths.executable("lastset"), ["--socket", socket, "--json", "events"], readyPrefix: nil)
        XCTAssertTrue(eventually(timeout: 10) { process.stderr.contains("following events") }, process.stderr)
        return process
    }

    func testACutFollowerReconnectsAndGetsExactlyTheEventsItMissed() throws {
        let daemon = try daemon()
        let relayPath = daemon.dir.appendingPathComponent("relay.sock").path
        var socat = try relay(relayPath, to: daemon)
        let cut = try follow(relayPath)
        defer { cut.terminate() }
        let direct = try follow(daemon.socketPath)
        defer { direct.terminate() }

        try capture(daemon)
        let finished = { (p: PeerProcess) in Self.events(p).filter { $0.event == .jobFinished }.count }
        XCTAssertTrue(eventually(timeout: 10) { finished(cut) == 1 && finished(direct) == 1 })

        // The connection is cut mid-stream; two captures happen while the follower is away.
        socat.terminate()
        XCTAssertTrue(eventually(timeout: 10) { cut.stderr.contains("the stream was cut") }, cut.stderr)
        try capture(daemon)
        try capture(daemon)
        XCTAssertTrue(eventually(timeout: 10) { finished(direct) == 3 })
        XCTAssertEqual(finished(cut), 1, "nothing arrives while the connection is cut")

        // The relay is back: the follower reopens with the last id it read and gets what it missed, then the live ones.
        socat = try relay(relayPath, to: daemon)
        defer { socat.terminate() }
        XCTAssertTrue(eventually(timeout: 30) { cut.stderr.contains("the stream is open again") }, cut.stderr)
        XCTAssertTrue(cut.stderr.contains("with Last-Event-ID "), cut.stderr)
        try capture(daemon)
        XCTAssertTrue(eventually(timeout: 10) { finished(cut) == 4 && finished(direct) == 4 }, cut.stderr)
        let got = Self.events(cut)
        let all = Self.events(direct)
        XCTAssertFalse(got.contains { $0.event == .gap }, "every missed event was kept: no gap")
        // Exactly the events the follower connected all along printed: none lost, none twice, in order.
        XCTAssertEqual(got, all)
        XCTAssertEqual(Set(got.compactMap { $0.event == .jobFinished ? $0.job?.id : nil }).count, 4)
        XCTAssertEqual(daemon.stop(), 0)
        XCTAssertTrue(eventually(timeout: 10) { direct.hasExited })
        XCTAssertEqual(direct.process.terminationStatus, 0, direct.stderr)
        XCTAssertTrue(direct.stderr.contains("the daemon stopped: the stream ended"), direct.stderr)
    }

    /// The raw protocol: ids `RUN-N`; a reconnect with an id of this run replays after it; one from before a restart
    /// gets a `gap` first.
    func testAnIdFromBeforeARestartGetsAGapFirst() throws {
        let daemon = try daemon()
        let client = HTTPClient(endpoint: .unix(path: daemon.socketPath), timeout: .seconds(10))
        /// Opens the stream with `lastEventID`, reads until `enough` messages arrived.
        func read(_ lastEventID: String?, enough: Int) throws -> ([ServerEventStream.Message], String?) {
            var reader = ServerEventStream()
            var messages: [ServerEventStream.Message] = []
            var headers = ["Accept": "text/event-stream"]
            if let lastEventID { headers["Last-Event-ID"] = lastEventID }
            let response = try client.stream(
                method: "GET", path: "/v1/events", headers: headers, firstByte: .seconds(10), idle: .seconds(10)
            ) { bytes in
                messages += reader.feed(bytes)
                // Until `enough` messages, and at least until the position (the opening `id:`) was read.
                return messages.count < enough || reader.lastEventId == nil
            }
            XCTAssertEqual(response.status, 200)
            return (messages, reader.lastEventId)
        }
        let (none, position) = try read(nil, enough: 0)
        XCTAssertEqual(none, [])
        let start = try XCTUnwrap(position.flatMap(EventPosition.init), "the stream opens with its position")
        XCTAssertEqual(start.sequence, 0)
        try capture(daemon)
        // Reconnecting at the position: the capture's events, numbered from 1, in order.
        let (missed, _) = try read(position, enough: 2)
        XCTAssertEqual(missed.first?.event, "jobStarted")
        XCTAssertEqual(missed.first?.id, "\(start.run)-1")
        XCTAssertEqual(missed.map { EventPosition($0.id ?? "")?.sequence ?? -1 }, Array(1...missed.count))

        XCTAssertEqual(daemon.stop(), 0)
        try daemon.restart()
        let (afterRestart, newPosition) = try read(position, enough: 1)
        XCTAssertEqual(afterRestart.map(\.event), ["gap"])
        let gap = try APICoding.decoder().decode(ServerEvent.self, from: Data(afterRestart[0].data.utf8))
        XCTAssertEqual(gap.event, .gap)
        XCTAssertTrue(gap.reason?.contains("from another run of lastsetd") ?? false, "\(gap)")
        let now = try XCTUnwrap(newPosition.flatMap(EventPosition.init))
        XCTAssertNotEqual(now.run, start.run, "a restart is another run")
        XCTAssertEqual(daemon.stop(), 0)
    }
}
