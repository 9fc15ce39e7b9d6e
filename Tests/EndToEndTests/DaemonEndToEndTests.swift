import Foundation
import Glibc
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// The real `lastsetd` binary against pymodbus peers and `lastset-sim` on 127.0.0.1.
final class DaemonEndToEndTests: XCTestCase {
    static func text(_ s: String, bytes: Int) -> [UInt16] {
        [UInt16](bigEndianBytes: Array(s.utf8) + [UInt8](repeating: 0, count: bytes - s.utf8.count))
    }

    static let reference: [Int: [UInt16]] = [
        0: text("PRS-200", bytes: 8), 100: [2], 101: [UInt16(bitPattern: -150)], 102: [0xE240, 0x0001], 104: [0xFFFF],
        110: text("Line 3", bytes: 16), 120: [12], 200: [17],
    ]
    static let blank: [Int: [UInt16]] = [
        0: text("PRS-200", bytes: 8), 100: [0xFFFF], 101: [0x7FFF], 102: [0xFFFF, 0xFFFF], 104: [0xFFFF],
        110: [UInt16](repeating: 0xFFFF, count: 8), 120: [0xFFFF], 200: [42],
    ]

    static let pages = """
          pages: [
            {
              id: "heating", title: "Heating",
              identity: [ { registerId: "model", address: 0, type: "string(8)" } ],
              beforeWrite: [ { address: 1536, value: 6868 } ],
              afterWrite: [ { address: 2304, value: 0 } ],
              registers: [
                { registerId: "heating.mode", address: 100, type: "u16", enum: [0, 1, 2] },
                { registerId: "heating.setpoint", address: 101, type: "s16", min: -200, max: 900 },
                { registerId: "heating.energy", address: 102, type: "u32", wordOrder: "little" },
                { registerId: "heating.spare", address: 104, type: "u16" },
                { registerId: "heating.label", address: 110, type: "string(16)" },
                { registerId: "heating.hysteresis", address: 120, type: "u16", max: 50 },
                { registerId: "comm.unit", address: 200, type: "u16", clone: false },
              ],
            },
          ],
        """


    private func config(_ devices: [(id: String, port: Int, quirks: String)]) -> String {
        let list = devices.map {
            "    { id: \"\($0.id)\", endpoint: \"tcp://127.0.0.1:\($0.port)\", unit: 1, pages: [\"heating\"]\($0.quirks.isEmpty ? "" : ", quirks: \($0.quirks)") },"
        }.joined(separator: "\n")
        return "// e2e\n{\n  version: 1,\n  devices: [\n\(list)\n  ],\n\(Self.pages)\n}\n"
    }

    func testCaptureFromAApplyToBThroughTheCLI() throws {
        let a = try pymodbusPeer(Self.reference)
        let b = try pymodbusPeer(Self.blank)
        let daemon = try DaemonHarness(config: config([("press-a", a.port!, ""), ("press-b", b.port!, "")]))

        let capture = try daemon.cli(["capture", "heating", "--from", "press-a"])
        XCTAssertEqual(capture.status, 0, capture.stdout + capture.stderr)
        let apply = try daemon.cli(["apply", "heating", "--to", "press-b"])
        XCTAssertEqual(apply.status, 0, apply.stdout + apply.stderr)
        XCTAssertTrue(apply.stdout.contains("verified"), apply.stdout)

        XCTAssertEqual(
            try Mbpoll.readHolding(port: b.port!, unit: 1, address: 100, count: 4), [2, UInt16(bitPattern: -150), 0xE240, 0x0001])
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 110, count: 8), Self.text("Line 3", bytes: 16))
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 120, count: 1), [12])
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 104, count: 1), [0xFFFF])
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 200, count: 1), [42])
        XCTAssertEqual(try b.writes().map(\.address), [1536, 100, 110, 120, 2304])

        let json = try daemon.cli(["--json", "templates", "heating"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let listing = try APICoding.decoder().decode([TemplateListing].self, from: Data(json.stdout.utf8))
        XCTAssertEqual(listing.map(\.version), [1])

        let audit = try daemon.auditRecords()
        XCTAssertEqual(audit.map(\.kind), [.capture, .replay])
        XCTAssertEqual(audit[1].who, "uid:\(getuid())(\(String(cString: getpwuid(getuid())!.pointee.pw_name)))")
        XCTAssertEqual(audit[1].result, .succeeded)
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testApplyToTwoBlankMachinesRunsInParallelAndAdHocEndpointsWork() throws {
        let a = try pymodbusPeer(Self.reference)
        let b = try pymodbusPeer(Self.blank, ["--delay-ms", "40"])
        let c = try pymodbusPeer(Self.blank, ["--delay-ms", "40"])
        let daemon = try DaemonHarness(config: config([("press-a", a.port!, ""), ("press-b", b.port!, "")]))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)

        let jobB = try daemon.decode(JobInfo.self, try daemon.api("POST", "/v1/pages/heating/apply", #"{"device":"press-b"}"#))
        let jobC = try daemon.decode(
            JobInfo.self,
            try daemon.api("POST", "/v1/pages/heating/apply", "{\"endpoint\":\"tcp://127.0.0.1:\(c.port!)\",\"unit\":1}"))
        var done: [JobInfo] = []
        let end = Date().addingTimeInterval(30)
        while done.count < 2 && Date() < end {
            done = try [jobB.id, jobC.id].map { try daemon.decode(JobInfo.self, try daemon.api("GET", "/v1/jobs/\($0)")) }
                .filter { $0.state == .finished }
            usleep(20_000)
        }
        XCTAssertEqual(done.count, 2)
        for job in done {
            XCTAssertEqual(job.replay?.status, .succeeded, "\(job.device): \(job.replay?.reason ?? job.error ?? "")")
        }
        // Both ran at the same time: each started before the other finished.
        XCTAssertLessThan(done[0].startedAt, done[1].finishedAt!)
        XCTAssertLessThan(done[1].startedAt, done[0].finishedAt!)
        for port in [b.port!, c.port!] {
            XCTAssertEqual(
                try Mbpoll.readHolding(port: port, unit: 1, address: 100, count: 4),
                [2, UInt16(bitPattern: -150), 0xE240, 0x0001])
        }
    }

    func testSecondReplayToTheSameDeviceGets409AndSigtermStopsAReplayAtACleanPoint() throws {
        let a = try pymodbusPeer(Self.reference)
        let b = try pymodbusPeer(Self.blank, ["--delay-ms", "60"])
        let daemon = try DaemonHarness(
            config: config([("press-a", a.port!, ""), ("press-b", b.port!, "{ writeFunction: \"fc06\", timeout: \"2s\" }")]))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)

        let first = try daemon.api("POST", "/v1/pages/heating/apply", #"{"device":"press-b"}"#)
        XCTAssertEqual(first.status, 202, first.text)
        let second = try daemon.api("POST", "/v1/pages/heating/apply", #"{"device":"press-b"}"#)
        XCTAssertEqual(second.status, 409, second.text)
        XCTAssertTrue(second.text.contains("device_busy"), second.text)

        // Let a few FC06 writes land, then SIGTERM mid-replay.
        let end = Date().addingTimeInterval(10)
        while (try? b.writes().count) ?? 0 < 3 && Date() < end { usleep(10_000) }
        let started = Date()
        XCTAssertEqual(daemon.stop(signal: SIGTERM), 0, daemon.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)

        let writes = try b.writes()
        XCTAssertFalse(writes.contains { $0.address == 2304 }, "commit ran after an interrupted replay")
        XCTAssertLessThan(writes.count, 14, "the replay ran to its end instead of stopping")
        let replay = try daemon.auditRecords().last!
        XCTAssertEqual(replay.kind, .replay)
        XCTAssertEqual(replay.result, .failed)
        XCTAssertTrue(replay.message?.contains("shutdown") ?? false, replay.message ?? "")
        XCTAssertTrue(replay.registers.contains { $0.status == .replay(.notAttempted) })
        XCTAssertTrue(eventually(timeout: 5) { daemon.stderr.contains("stopped shutdown before") }, daemon.stderr)
    }

    func testReadyAndWatchdogAreSentAndBadRequestsGetClearErrors() throws {
        let a = try pymodbusPeer(Self.reference)
        let daemon = try DaemonHarness(config: config([("press-a", a.port!, "")]), environment: ["WATCHDOG_USEC": "200000"])
        let (pinged, seen) = daemon.notify.wait(for: "WATCHDOG=1", timeout: 2)
        XCTAssertTrue(pinged, "no WATCHDOG=1 within 2 s: \(seen)")

        let cases: [(String, String, String?, Int, String)] = [
            ("POST", "/v1/pages/heating/capture", "{\"device\": ", 400, "bad_json"),
            ("POST", "/v1/pages/heating/capture", "{}", 400, "bad_json"),
            ("POST", "/v1/pages/heating/apply", "{}", 400, "missing_target"),
            ("POST", "/v1/pages/heating/apply", #"{"endpoint":"udp://1.2.3.4:5"}"#, 400, "bad_endpoint"),
            ("POST", "/v1/pages/heating/capture", #"{"device":"nope"}"#, 404, "unknown_device"),
            ("POST", "/v1/pages/cooling/capture", #"{"device":"press-a"}"#, 404, "unknown_page"),
            ("GET", "/v1/pages/heating/templates/latest", nil, 404, "no_template"),
            ("GET", "/v1/pages/heating/templates/7", nil, 404, "unknown_version"),
            ("GET", "/v1/pages/heating/templates/x", nil, 400, "bad_version"),
            ("GET", "/v1/pages/..%2F..%2Fetc/templates", nil, 404, "not_found"),
            ("GET", "/v1/pages/.hidden/templates", nil, 400, "invalid_name"),
            ("DELETE", "/v1/pages", nil, 405, "method_not_allowed"),
            ("GET", "/v2/pages", nil, 404, "not_found"),
            ("POST", "/v1/pages/heating/apply", String(repeating: " ", count: 70_000) + "{}", 413, "body_too_large"),
            ("POST", "/v1/pages/heating/apply", #"{"device":"press-a","dryrun":true}"#, 400, "unknown_key"),
            ("POST", "/v1/pages/heating/templates", "not a template", 422, "invalid_template"),
        ]
        for (method, path, body, status, code) in cases {
            let r = try daemon.api(method, path, body)
            XCTAssertEqual(r.status, status, "\(method) \(path): \(r.text)")
            let error = try? JSONDecoder().decode([String: [String: String]].self, from: Data(r.body))
            XCTAssertEqual(error?["error"]?["code"], code, "\(method) \(path): \(r.text)")
            XCTAssertFalse(error?["error"]?["message"]?.isEmpty ?? true)
        }
        XCTAssertFalse(
            FileManager.default.fileExists(
                atPath: daemon.dataDir.appendingPathComponent("templates/..").standardized.appendingPathComponent("etc").path))
        XCTAssertEqual(try daemon.api("DELETE", "/v1/pages/heating/templates").header("allow"), "GET, POST")
        XCTAssertEqual(try daemon.api("GET", "/v1/health").status, 200, "the daemon survived the bad requests")
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testSighupReloadsAValidConfigAndKeepsTheOldOneOnAnInvalidOne() throws {
        let a = try pymodbusPeer(Self.reference)
        let daemon = try DaemonHarness(config: config([("press-a", a.port!, "")]))
        try config([("press-a", a.port!, ""), ("press-z", a.port!, "")]).write(
            to: daemon.configURL, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        XCTAssertTrue(daemon.notify.wait(for: "READY=1", timeout: 5).found)
        XCTAssertEqual(
            try daemon.decode([DeviceStatus].self, try daemon.api("GET", "/v1/devices")).map(\.id), ["press-a", "press-z"])

        try "{ version: 1, devices: [ { id: \"x\" } ], pages: [] }".write(to: daemon.configURL, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        XCTAssertTrue(daemon.notify.wait(for: "READY=1", timeout: 5).found)
        XCTAssertEqual(
            try daemon.decode([DeviceStatus].self, try daemon.api("GET", "/v1/devices")).map(\.id), ["press-a", "press-z"])
        XCTAssertTrue(eventually(timeout: 5) { daemon.stderr.contains("reload refused") }, daemon.stderr)
        XCTAssertEqual(daemon.stop(signal: SIGINT), 0)
    }

    func testInvalidConfigIsRefusedWithEveryProblemAndCheckConfigExitCodes() throws {
        let dir = try TestPaths.temporaryDirectory(prefix: "e2e-config")
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.json")
        try """
        { version: 1,
          devices: [ { id: "d", endpoint: "tcp://127.0.0.1:99999", unit: 300, pages: ["nope"] } ],
          pages: [ { id: "../x", registers: [ { registerId: "r", address: 1, type: "u17" } ] } ] }
        """.write(to: bad, atomically: true, encoding: .utf8)
        let lastsetd = try TestPaths.executable("lastsetd")
        for args in [
            ["--check-config", "--config", bad.path],
            ["--config", bad.path, "--data-dir", dir.path, "--socket", dir.path + "/s"],
        ] {
            let run = try ProgramRun.run(lastsetd, args)
            let text = run.stderr
            XCTAssertEqual(run.status, 1, text)
            for fragment in [
                "devices[0].endpoint", "99999", "devices[0].unit", "300", "devices[0].pages[0]", "pages[0].id",
                "pages[0].registers[0].type", "u17",
            ] {
                XCTAssertTrue(text.contains(fragment), "missing \(fragment) in:\n\(text)")
            }
        }
        let good = URL(fileURLWithPath: TestPaths.repoRoot.path + "/Config/demo/lastset.json")
        let check = try ProgramRun.run(lastsetd, ["--check-config", "--config", good.path])
        XCTAssertEqual(check.status, 0, check.stderr)
    }
}

extension DaemonEndToEndTests {
    /// The watch job: live values and health appear for a polled device, and an unreachable one says why.
    func testPollingKeepsLiveValuesAndHealth() throws {
        let a = try pymodbusPeer(Self.reference)
        let daemon = try DaemonHarness(
            config: """
                { version: 1,
                  devices: [
                    { id: "press-a", endpoint: "tcp://127.0.0.1:\(a.port!)", unit: 1, pages: ["heating"], poll: "100ms" },
                    { id: "gone", endpoint: "tcp://127.0.0.1:1", unit: 1, pages: ["heating"], poll: "100ms",
                      quirks: { timeout: "100ms", retries: 0 } },
                  ],
                \(Self.pages)
                }
                """)
        var devices: [DeviceStatus] = []
        let end = Date().addingTimeInterval(10)
        repeat {
            usleep(50_000)
            devices = try daemon.decode([DeviceStatus].self, try daemon.api("GET", "/v1/devices"))
        } while (devices.first?.live["heating"] == nil || devices.last?.reachable == nil) && Date() < end
        let live = try XCTUnwrap(devices.first?.live["heating"])
        XCTAssertEqual(devices.first?.reachable, true)
        XCTAssertEqual(live.first { $0.registerId == "heating.mode" }?.value, .unsigned(2))
        XCTAssertEqual(live.first { $0.registerId == "heating.label" }?.value, .text("Line 3"))
        XCTAssertNotNil(live.first?.lastDate)
        XCTAssertEqual(devices.last?.reachable, false)
        XCTAssertTrue(devices.last?.lastError?.contains("127.0.0.1:1") ?? false, devices.last?.lastError ?? "nil")
        let cli = try daemon.cli(["devices"])
        XCTAssertEqual(cli.status, 0)
        XCTAssertTrue(cli.stdout.contains("press-a") && cli.stdout.contains("reachable"), cli.stdout)
    }

    /// The optional TCP listener: loopback only, bearer token required, Host checked; the token id is the audit identity.
    func testTCPListenerRequiresTheToken() throws {
        let a = try pymodbusPeer(Self.reference)
        let dir = try TestPaths.temporaryDirectory(prefix: "token")
        defer { try? FileManager.default.removeItem(at: dir) }
        let tokenFile = dir.appendingPathComponent("token")
        try "s3cret-token-0123456789\n".write(to: tokenFile, atomically: true, encoding: .utf8)
        chmod(tokenFile.path, 0o600)
        let port = try TestPorts.freeLoopbackPort()
        let daemon = try DaemonHarness(
            config: """
                { version: 1,
                  api: { tcp: { listen: "127.0.0.1:\(port)", tokenFile: "\(tokenFile.path)" } },
                  devices: [ { id: "press-a", endpoint: "tcp://127.0.0.1:\(a.port!)", unit: 1, pages: ["heating"] } ],
                \(Self.pages)
                }
                """)
        let anonymous = HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: UInt16(port)), timeout: .seconds(10))
        XCTAssertEqual(try anonymous.send(method: "GET", path: "/v1/health").status, 401)
        let wrong = HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: UInt16(port)), timeout: .seconds(10), bearerToken: "nope")
        XCTAssertEqual(try wrong.send(method: "GET", path: "/v1/health").status, 401)
        let client = HTTPClient(
            endpoint: .tcp(host: "127.0.0.1", port: UInt16(port)), timeout: .seconds(10), bearerToken: "s3cret-token-0123456789")
        XCTAssertEqual(try client.send(method: "GET", path: "/v1/health").status, 200)
        XCTAssertEqual(try client.send(method: "GET", path: "/v1/health", headers: ["Host": "evil.example:80"]).status, 403)
        XCTAssertEqual(try client.send(method: "GET", path: "/v1/health", headers: ["Origin": "http://evil.example"]).status, 403)
        let capture = try client.send(
            method: "POST", path: "/v1/pages/heating/capture?wait=1", body: Array(#"{"device":"press-a"}"#.utf8))
        XCTAssertEqual(capture.status, 200, capture.text)
        XCTAssertEqual(try daemon.auditRecords().last?.who, "token:api")
    }
}
