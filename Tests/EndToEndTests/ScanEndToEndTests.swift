import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// `lastset scan` through the real daemon: an RTU line on a socat pty pair with units 3, 17 and 42 (pymodbus, one
/// `ModbusDeviceIdentification`, every other unit silent as on a real line) — every unit found, no false
/// positive, within 247 × the timeout + 5 %; two baud rates; which archived templates fit what it found; and a SunSpec
/// device built from pysunspec2's models whose generated pages read what pysunspec2's own client reads.
final class ScanEndToEndTests: XCTestCase {
    private var stops: [() -> Void] = []

    override func tearDown() {
        for stop in stops.reversed() { stop() }
        stops = []
    }

    private func line(units: String) throws -> (SocatPair, PymodbusPeer) {
        let pair = try SocatPair.start()
        stops.append { pair.stop() }
        let identity = try IdentificationEndToEndTests.identityFile([
            "VendorName": "Acme Presses", "ProductCode": "PRS-200", "MajorMinorRevision": "3.1.4",
        ])
        let peer = try PymodbusPeer.startRTU(
            path: pair.serverPath, options: ["--units", units, "--identity", identity], values: [0: [200], 100: [2, 215]])
        stops.append { peer.stop() }
        return (pair, peer)
    }

    private static func config(line: String) -> String {
        """
        { version: 1,
          devices: [ { id: "press-17", endpoint: "rtu://\(line)?baud=19200", unit: 17, pages: ["heating", "motion"] } ],
          pages: [
            { id: "heating", identity: [ { object: "ProductCode" }, { registerId: "model", address: 0, type: "u16" } ],
              registers: [ { registerId: "heating.mode", address: 100, type: "u16" } ] },
            { id: "motion", identity: [ { object: "ProductCode" } ],
              registers: [ { registerId: "motion.ramp", address: 101, type: "u16" } ] },
          ],
        }
        """
    }

    private func scan(_ daemon: DaemonHarness, _ arguments: [String]) throws -> ScanReport {
        let run = try daemon.cli(["--json", "scan"] + arguments)
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let report = try JSONSerialization.data(withJSONObject: object?["report"] ?? [:])
        return try JSONDecoder().decode(ScanReport.self, from: report)
    }

    func testAFullSweepFindsUnits3_17_42AndNothingElseWithinItsTimeBound() throws {
        let (pair, peer) = try line(units: "3,17,42")
        let daemon = try DaemonHarness(config: Self.config(line: pair.clientPath))
        // A template of heating from unit 17; motion gets one from a device that the line does not hold.
        let capture = try daemon.cli(["capture", "heating", "--from", "press-17"])
        XCTAssertEqual(capture.status, 0, capture.stdout + capture.stderr)

        let report = try scan(daemon, ["rtu://\(pair.clientPath)?baud=19200", "--units", "1-247", "--timeout", "100ms"])
        XCTAssertNil(report.error)
        let sweep = try XCTUnwrap(report.sweeps.first)
        XCTAssertEqual(sweep.found.map(\.unit), [3, 17, 42], "every unit found, no false positive")
        XCTAssertEqual(sweep.probes, 247)
        let bound = 247 * 0.100 * 1.05
        XCTAssertLessThanOrEqual(sweep.seconds, bound, "247 × 100 ms + 5 % = \(bound) s")
        FileHandle.standardError.write(
            Data(
                ("scan figure: 1-247 at 19200 baud, timeout 100 ms: \(sweep.seconds) s (bound \(bound) s), 3 found, "
                    + "\(sweep.probes) probes, \(sweep.requests) requests\n").utf8))
        for device in sweep.found {
            XCTAssertEqual(device.identification?.productCode, "PRS-200", "\(device.unit)")
            XCTAssertEqual(device.identification?.majorMinorRevision, "3.1.4")
            XCTAssertEqual(device.answered, "registers")
            XCTAssertNil(device.sunspec, "no SunS marker at 40000, 0 or 50000")
            XCTAssertEqual(device.fits.map(\.pageId), ["heating", "motion"])
            XCTAssertEqual(device.fits.map(\.fits), [true, false], "heating v1 fits; motion has no template")
            XCTAssertTrue(device.configEntry.contains(#"unit: \#(device.unit), pages: ["heating"]"#), device.configEntry)
        }
        // From the line's side: nothing but reads reached the devices.
        XCTAssertEqual(try peer.writes().count, 0)

        let text = try daemon.cli(["scan", "rtu://\(pair.clientPath)?baud=19200", "--units", "1-20", "--timeout", "100ms"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("19200 baud: 2 found, 20 probes"), text.stdout)
        XCTAssertTrue(text.stdout.contains(#"{ id: "prs-200-17", endpoint: "rtu://"#), text.stdout)
        XCTAssertTrue(text.stdout.contains("heating v1"), text.stdout)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// Each baud is a sweep of its own, the line reopened at it (a pty passes bytes whatever its speed, so both find
    /// the units here; on a real line the wrong baud finds none).
    func testEachBaudIsASweepOfItsOwn() throws {
        let (pair, _) = try line(units: "3,17")
        let daemon = try DaemonHarness(
            config:
                #"{ version: 1, devices: [], pages: [ { id: "p", registers: [ { registerId: "r", address: 1, type: "u16" } ] } ] }"#
        )
        let report = try scan(
            daemon, ["rtu://\(pair.clientPath)?baud=19200", "--units", "1-5,17", "--bauds", "9600,19200", "--timeout", "100ms"])
        XCTAssertEqual(report.sweeps.map(\.baud), [9600, 19200])
        XCTAssertEqual(report.sweeps.map { $0.found.map(\.unit) }, [[3, 17], [3, 17]])
        XCTAssertEqual(report.sweeps.map(\.probes), [6, 6])
        XCTAssertTrue(report.sweeps[0].found[0].endpoint.contains("baud=9600"), report.sweeps[0].found[0].endpoint)
        XCTAssertTrue(report.sweeps[1].found[0].endpoint.contains("baud=19200"), report.sweeps[1].found[0].endpoint)

        let usage = try daemon.cli(["scan", "tcp://127.0.0.1:1502", "--bauds", "9600"])
        XCTAssertEqual(usage.status, 64, usage.stderr)
        let badUnits = try daemon.cli(["scan", "rtu://\(pair.clientPath)", "--units", "0-3"])
        XCTAssertEqual(badUnits.status, 64, badUnits.stderr)
        XCTAssertTrue(badUnits.stderr.contains("0 is broadcast"), badUnits.stderr)
        XCTAssertEqual(daemon.stop(), 0)
    }
}

/// A SunSpec device laid out by pysunspec2 (its models and encoder, `Tests/peers/sunspec_device.py`) and served by
/// pymodbus: `lastset scan --sunspec-models` finds the chain and generates a page per model with RW points; captured
/// through the daemon, every RW point's value × its page scale equals pysunspec2's own client's `cvalue`.
final class SunSpecScanEndToEndTests: XCTestCase {
    private var stops: [() -> Void] = []

    override func tearDown() {
        for stop in stops.reversed() { stop() }
        stops = []
    }

    private func python(_ script: String, _ arguments: [String]) throws -> Data {
        let run = try ProgramRun.run(
            try PymodbusPeer.python(), [TestPaths.peersDirectory.appendingPathComponent(script).path] + arguments)
        XCTAssertEqual(run.status, 0, "\(script) failed: \(run.stderr)")
        return run.stdoutData
    }

    func testGeneratedPagesReadWhatPysunspec2Reads() throws {
        let dir = try TestPaths.temporaryDirectory(prefix: "sunspec")
        let values = dir.appendingPathComponent("values.json").path
        _ = try python("sunspec_device.py", ["--models", "1,103,123,126:2,704", "--values-out", values])
        let peer = try PymodbusPeer.startTCP(options: ["--size", "40500", "--values", values])
        stops.append { peer.stop() }
        let models = String(
            decoding: try python("sunspec_device.py", ["--models-dir"]), as: UTF8.self
        ).trimmingCharacters(in: .whitespacesAndNewlines)

        let scanner = try DaemonHarness(
            config:
                #"{ version: 1, devices: [], pages: [ { id: "p", registers: [ { registerId: "r", address: 1, type: "u16" } ] } ] }"#
        )
        let run = try scanner.cli(["--json", "scan", "tcp://127.0.0.1:\(peer.port!)", "--units", "1", "--sunspec-models", models])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertEqual(scanner.stop(), 0)
        let output = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let report = try JSONDecoder().decode(ScanReport.self, from: JSONSerialization.data(withJSONObject: output["report"]!))
        let chain = try XCTUnwrap(report.found.first?.sunspec)
        XCTAssertEqual(chain.base, 40000)
        XCTAssertEqual(chain.realModels.map(\.id), [1, 103, 123, 126, 704])
        let pagesJSON = try JSONSerialization.data(withJSONObject: output["sunspecPages"]!)
        let pages = try JSONDecoder().decode([PageDefinition].self, from: pagesJSON)
        XCTAssertEqual(pages.map(\.id), ["sunspec-1", "sunspec-123", "sunspec-126", "sunspec-704"], "103 has no RW point")

        let config = """
            { version: 1,
              devices: [ { id: "inverter", endpoint: "tcp://127.0.0.1:\(peer.port!)", unit: 1, pages: [\(pages.map { "\"\($0.id)\"" }.joined(separator: ", "))] } ],
              pages: \(String(decoding: pagesJSON, as: UTF8.self)) }
            """
        let daemon = try DaemonHarness(config: config)
        let expected =
            try JSONSerialization.jsonObject(
                with: try python("sunspec_read.py", ["--port", String(peer.port!)])) as? [String: [String: Any]] ?? [:]
        var compared = 0
        for page in pages {
            let capture = try daemon.cli(["capture", page.id, "--from", "inverter"])
            XCTAssertEqual(capture.status, 0, capture.stdout + capture.stderr)
            let template = try daemon.decode(Template.self, try daemon.api("GET", "/v1/pages/\(page.id)/templates/latest"))
            let model = String(page.id.dropFirst("sunspec-".count))
            let theirs = (expected[model] ?? [:]).filter { !($0.value is NSNull) }
            let scales = Dictionary(uniqueKeysWithValues: page.registers.map { ($0.registerId, $0.scale ?? 1) })
            var ours: [String: RegisterValue] = [:]
            for entry in template.entries { ours[String(entry.registerId.dropFirst("sunspec\(model).".count))] = entry.value }
            XCTAssertEqual(Set(ours.keys), Set(theirs.keys), "model \(model): the same RW points have values")
            for (path, value) in ours {
                let scale = scales["sunspec\(model).\(path)"] ?? 1
                switch (value, theirs[path]) {
                case (.text(let text), let other as String): XCTAssertEqual(text, other, "\(model) \(path)")
                case (_, let other as NSNumber):
                    let mine = (value.number ?? .nan) * scale
                    XCTAssertEqual(
                        mine, other.doubleValue, accuracy: max(1e-9, abs(other.doubleValue) * 1e-12), "\(model) \(path)")
                default: XCTFail("\(model) \(path): \(value) against \(String(describing: theirs[path]))")
                }
                compared += 1
            }
        }
        FileHandle.standardError.write(
            Data(
                "sunspec figure: \(compared) RW points compared over \(pages.count) generated pages, all equal to pysunspec2's cvalue\n"
                    .utf8))
        XCTAssertGreaterThan(compared, 80)
        XCTAssertEqual(daemon.stop(), 0)
    }
}
