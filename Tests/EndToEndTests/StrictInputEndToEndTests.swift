import Foundation
import Glibc
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// Input that must never become a write, a trap or a default: strict request bodies and configs
/// against the real `lastsetd` and a pymodbus peer that logs every write frame it receives.
final class StrictInputEndToEndTests: XCTestCase {

    private func config(_ devices: [(id: String, endpoint: String, quirks: String)], pages: String = DaemonEndToEndTests.pages)
        -> String
    {
        let list = devices.map {
            "    { id: \"\($0.id)\", endpoint: \"\($0.endpoint)\", unit: 1, pages: [\"heating\"]\($0.quirks.isEmpty ? "" : ", quirks: \($0.quirks)") },"
        }.joined(separator: "\n")
        return "{\n  version: 1,\n  devices: [\n\(list)\n  ],\n\(pages)\n}\n"
    }

    private func runLastsetd(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let run = try ProgramRun.built("lastsetd", arguments)
        return (run.status, run.stdout, run.stderr)
    }

    /// Issue 8 item 1: `{"dryRun": null}` and a duplicated `dryRun` wrote 4 frames; now a 400 and nothing sent.
    func testNullOrDuplicatedDryRunIsA400AndNoFrameIsWritten() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let b = try pymodbusPeer(DaemonEndToEndTests.blank)
        let daemon = try DaemonHarness(
            config: config([("press-a", "tcp://127.0.0.1:\(a.port!)", ""), ("press-b", "tcp://127.0.0.1:\(b.port!)", "")]))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)
        let cases: [(String, String)] = [
            (#"{"device":"press-b","dryRun":null}"#, "null_value"),
            (#"{"device":"press-b","dryRun":false,"dryRun":true}"#, "duplicate_key"),
            (#"{"device":"press-b","dryRun":true,"dryRun":false}"#, "duplicate_key"),
            (#"{"device":"press-b","device":"press-b","dryRun":true}"#, "duplicate_key"),
            (#"{"device":"press-b","dryRun":"true"}"#, "bad_json"),
            (#"{"device":"press-b","dryRun":0}"#, "bad_json"),
            (#"{"device":"press-b","dryRun":1}"#, "bad_json"),
            (#"{"device":"press-b","onError":null}"#, "null_value"),
            (#"{"device":"press-b","dryRun":true,}"#, "bad_json"),
            (#"{"device":"press-b",dryRun:true}"#, "bad_json"),
            ("{\"device\":\"press-b\",\"dryRun\":true,\"x\u{FFFD}\":1}", "unknown_key"),
        ]
        for (body, code) in cases {
            let r = try daemon.api("POST", "/v1/pages/heating/apply?wait=1", body)
            XCTAssertEqual(r.status, 400, "\(body): \(r.text)")
            let error = try? JSONDecoder().decode([String: [String: String]].self, from: Data(r.body))
            XCTAssertEqual(error?["error"]?["code"], code, "\(body): \(r.text)")
        }
        // Invalid UTF-8 in a body is a 400 too, never a trap.
        let raw = try daemon.client.send(
            method: "POST", path: "/v1/pages/heating/apply?wait=1", body: Array(#"{"device":"press-b","dryRun":tr"#.utf8) + [0xF8]
        )
        XCTAssertEqual(raw.status, 400, raw.text)
        XCTAssertEqual(try b.writes(), [], "a refused body reached the machine")
        // The explicit dry run is still a dry run.
        let dry = try daemon.api("POST", "/v1/pages/heating/apply?wait=1", #"{"device":"press-b","dryRun":true}"#)
        XCTAssertEqual(dry.status, 200, dry.text)
        XCTAssertEqual(try daemon.decode(JobInfo.self, dry).replay?.status, .planned)
        XCTAssertEqual(try b.writes(), [], "a dry run wrote")
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// Issue 9 item 1: invalid UTF-8 trapped `--check-config` in Foundation's JSON5 scanner.
    func testInvalidUTF8AndDuplicateKeysInTheConfigAreProblemsNotTraps() throws {
        let dir = try TestPaths.temporaryDirectory(prefix: "utf8-config")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases: [([UInt8], [String])] = [
            (
                Array("{version: 1, ".utf8) + [0xF8] + Array("history: 20}".utf8),
                ["line 1, column 14", "not valid UTF-8", "0xF8"]
            ),
            (Array("{\n  version: 1,\n  pages: [{ id: \"".utf8) + [0xC3] + Array("\" }]}".utf8), ["line 3", "0xC3"]),
            (Array("{ version: 1, devices: [], pages: [] } // ".utf8) + [0xC0, 0x80], ["0xC0"]),
            (Array("{ version: 1, devices: [], pages: [], ".utf8) + [0xED, 0xA0, 0x80] + Array(": 1 }".utf8), ["0xED"]),
            (Array("{ version: 1, version: 1, devices: [], pages: [] }".utf8), ["version", "duplicate key \"version\""]),
        ]
        for (bytes, fragments) in cases {
            let file = dir.appendingPathComponent("bad.json")
            try Data(bytes).write(to: file)
            let r = try runLastsetd(["--check-config", "--config", file.path])
            XCTAssertEqual(r.status, 1, "\(bytes): \(r.stderr)")
            for fragment in fragments {
                XCTAssertTrue(r.stderr.contains(fragment), "missing \(fragment) in: \(r.stderr)")
            }
        }
        // A null for a key that decides what is written is a problem, never the default.
        let file = dir.appendingPathComponent("null.json")
        try """
        { version: 1, devices: [],
          pages: [ { id: "p", registers: [ { registerId: "c", address: 1, type: "u16", clone: null },
                                           { registerId: "c", address: 2, type: "u16", access: null } ] } ] }
        """.write(to: file, atomically: true, encoding: .utf8)
        let r = try runLastsetd(["--check-config", "--config", file.path])
        XCTAssertEqual(r.status, 1, r.stderr)
        for fragment in [
            "pages[0].registers[0].clone: null is not a value", "pages[0].registers[1].access: null", "duplicate registerId",
        ] {
            XCTAssertTrue(r.stderr.contains(fragment), "missing \(fragment) in: \(r.stderr)")
        }
    }

    /// Issue 9 item 1: the same bytes given by SIGHUP killed the running daemon.
    func testSighupWithAnInvalidUTF8ConfigKeepsTheDaemonAndItsConfig() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let daemon = try DaemonHarness(config: config([("press-a", "tcp://127.0.0.1:\(a.port!)", "")]))
        try Data(Array("{version: 1, ".utf8) + [0xF8] + Array("history: 20}".utf8)).write(to: daemon.configURL)
        kill(daemon.process.processIdentifier, SIGHUP)
        XCTAssertTrue(daemon.notify.wait(for: "READY=1", timeout: 30).found, daemon.stderr)
        XCTAssertTrue(daemon.process.isRunning, daemon.stderr)
        XCTAssertEqual(try daemon.api("GET", "/v1/health").status, 200)
        XCTAssertEqual(try daemon.decode([DeviceStatus].self, try daemon.api("GET", "/v1/devices")).map(\.id), ["press-a"])
        XCTAssertTrue(daemon.stderrContains("not valid UTF-8"), daemon.stderr)
        XCTAssertTrue(daemon.stderrContains("reload refused"), daemon.stderr)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// Issue 8 item 2: an ad-hoc spelling of a configured endpoint had its own lock; replays interleaved.
    func testAdHocSpellingsOfAConfiguredEndpointShareItsLock() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let b = try pymodbusPeer(DaemonEndToEndTests.blank, ["--delay-ms", "40"])
        let port = b.port!
        let daemon = try DaemonHarness(
            config: config([
                ("press-a", "tcp://127.0.0.1:\(a.port!)", ""),
                ("press-b", "tcp://127.0.0.1:\(port)", "{ writeFunction: \"fc06\", timeout: \"2s\" }"),
            ]))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)
        let first = try daemon.api("POST", "/v1/pages/heating/apply", #"{"device":"press-b"}"#)
        XCTAssertEqual(first.status, 202, first.text)
        let job = try daemon.decode(JobInfo.self, first)
        for host in ["localhost", "127.1", "[::ffff:127.0.0.1]", "127.0.0.1"] {
            let r = try daemon.api(
                "POST", "/v1/pages/heating/apply", "{\"endpoint\":\"tcp://\(host):\(port)\",\"unit\":1}")
            XCTAssertEqual(r.status, 409, "\(host): \(r.text)")
            XCTAssertTrue(r.text.contains("device_busy"), r.text)
        }
        var finished: JobInfo?
        let end = Date().addingTimeInterval(30)
        while finished == nil && Date() < end {
            let j = try daemon.decode(JobInfo.self, try daemon.api("GET", "/v1/jobs/\(job.id)"))
            if j.state == .finished { finished = j } else { usleep(20_000) }
        }
        XCTAssertEqual(finished?.replay?.status, .succeeded, finished?.replay?.reason ?? "not finished")
        // One replay's frames, in order, none twice: nothing interleaved.
        let writes = try b.writes().map(\.address)
        XCTAssertEqual(writes.first, 1536)
        XCTAssertEqual(writes.last, 2304)
        XCTAssertEqual(writes.filter { $0 == 1536 }.count, 1, "\(writes)")
        // And the other way round: an ad-hoc replay holds the configured device's lock.
        let adHoc = try daemon.api("POST", "/v1/pages/heating/apply", "{\"endpoint\":\"tcp://localhost:\(port)\",\"unit\":1}")
        XCTAssertEqual(adHoc.status, 202, adHoc.text)
        let configured = try daemon.api("POST", "/v1/pages/heating/apply", #"{"device":"press-b"}"#)
        XCTAssertEqual(configured.status, 409, configured.text)
        let devices = try daemon.decode([DeviceStatus].self, try daemon.api("GET", "/v1/devices"))
        XCTAssertEqual(devices.first { $0.id == "press-b" }?.busy, JobKind.apply)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// Issue 8 item 10: a blank f32 (0xFFFFFFFF) made the capture invalid.
    func testABlankFloatIsCapturedAsUnset() throws {
        let pages = """
              pages: [ { id: "heating", registers: [
                { registerId: "mode", address: 100, type: "u16" },
                { registerId: "gain", address: 102, type: "f32" },
                { registerId: "offset", address: 104, type: "f32" },
                { registerId: "limit", address: 106, type: "f64" },
                { registerId: "trim", address: 110, type: "s16" },
              ] } ],
            """
        // gain is blank, offset holds 1.5, limit is a blank f64, trim holds the s16 minimum (a value here).
        let a = try pymodbusPeer([
            100: [3], 102: [0xFFFF, 0xFFFF], 104: [0x3FC0, 0], 106: [0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF], 110: [0x8000],
        ])
        let daemon = try DaemonHarness(config: config([("press-a", "tcp://127.0.0.1:\(a.port!)", "")], pages: pages))
        let r = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#)
        XCTAssertEqual(r.status, 200, r.text)
        let report = try XCTUnwrap(try daemon.decode(JobInfo.self, r).capture)
        XCTAssertTrue(report.archived, "\(report.problems)")
        XCTAssertEqual(report.skipped.map(\.registerId), ["gain", "limit"])
        XCTAssertEqual(Set(report.skipped.map(\.reason)), [.unset])
        XCTAssertEqual(report.entryCount, 3)
        XCTAssertEqual(daemon.stop(), 0)

        // Under SunSpec's convention the s16 minimum and a NaN are "not set" instead.
        let sunspec = try DaemonHarness(
            config: config(
                [("press-a", "tcp://127.0.0.1:\(a.port!)", "")],
                pages: pages.replacingOccurrences(
                    of: "id: \"heating\",", with: "id: \"heating\", unsetStyle: \"sunspec\",")))
        let s = try sunspec.decode(
            JobInfo.self, try sunspec.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#))
        XCTAssertEqual(s.capture?.skipped.map(\.registerId), ["gain", "limit", "trim"])
        XCTAssertEqual(sunspec.stop(), 0)
    }

    /// Issue 8 item 11: a NaN live value answered `GET /v1/devices` with 500 encoding_failed.
    func testNaNAndInfinityLiveValuesEncode() throws {
        let pages = """
              pages: [ { id: "heating", registers: [
                { registerId: "nan", address: 100, type: "f32" },
                { registerId: "inf", address: 102, type: "f32" },
                { registerId: "ninf", address: 104, type: "f64" },
              ] } ],
            """
        let a = try pymodbusPeer([100: [0x7FC0, 0], 102: [0x7F80, 0], 104: [0xFFF0, 0, 0, 0]])
        let daemon = try DaemonHarness(
            config: config([("press-a", "tcp://127.0.0.1:\(a.port!)", "")], pages: pages).replacingOccurrences(
                of: "pages: [\"heating\"]", with: "pages: [\"heating\"], poll: \"50ms\""))
        var live: [LiveValue]?
        let end = Date().addingTimeInterval(10)
        repeat {
            let r = try daemon.api("GET", "/v1/devices")
            XCTAssertEqual(r.status, 200, r.text)
            live = try daemon.decode([DeviceStatus].self, r).first?.live["heating"]
            if live == nil { usleep(20_000) }
        } while live == nil && Date() < end
        let values = try XCTUnwrap(live)
        XCTAssertEqual(values.map(\.valueData), ["7FC00000", "7F800000", "FFF0000000000000"])
        XCTAssertTrue(values[0].value?.number?.isNaN ?? false, "\(values)")
        XCTAssertEqual(values[1].value, .float(.infinity))
        XCTAssertEqual(values[2].value, .float(-.infinity))
        XCTAssertEqual(try daemon.api("GET", "/v1/devices/press-a").status, 200)
        let cli = try daemon.cli(["devices"])
        XCTAssertEqual(cli.status, 0, cli.stderr)
        let json = try daemon.cli(["--json", "devices"])
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual(daemon.stop(), 0)
    }
}

extension StrictInputEndToEndTests {
    /// A device's `unsetStyle` follows it when it is reached ad hoc by another spelling of its endpoint.
    func testAnAdHocSpellingOfASunSpecDeviceKeepsItsConvention() throws {
        // 0x7FFF is a value under SunSpec (its "not set" is 0x8000), but "not set" by default.
        let a = try PymodbusPeer.startTCP(values: [100: [0x7FFF]])
        defer { a.stop() }
        let daemon = try DaemonHarness(
            config: """
                { version: 1,
                  devices: [ { id: "inverter", endpoint: "tcp://127.0.0.1:\(a.port!)", unit: 1, pages: ["heating"],
                               unsetStyle: "sunspec" } ],
                  pages: [ { id: "heating", registers: [ { registerId: "trim", address: 100, type: "s16" } ] } ] }
                """)
        let capture = try daemon.decode(
            JobInfo.self, try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"inverter"}"#))
        XCTAssertEqual(capture.capture?.entryCount, 1, "\(String(describing: capture.capture))")
        let r = try daemon.api(
            "POST", "/v1/pages/heating/apply?wait=1", "{\"endpoint\":\"tcp://localhost:\(a.port!)\",\"unit\":1,\"dryRun\":true}")
        XCTAssertEqual(r.status, 200, r.text)
        let replay = try daemon.decode(JobInfo.self, r).replay
        XCTAssertEqual(replay?.status, .planned, replay?.reason ?? "")
        XCTAssertEqual(replay?.warnings.filter { $0.contains("page definition changed") }, [])
        XCTAssertEqual(daemon.stop(), 0)
    }
}
