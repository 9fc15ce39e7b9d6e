import Foundation
import LastsetCore
import TestSupport
import XCTest

/// Layered templates against real peers (docs/OVERRIDES.md): 32 `lastset-sim` machines on 127.0.0.1 with one
/// master, per-device overrides on 2–4 registers (in the config and in a CSV), one group layer and a band on an
/// f32 that one machine rounds to 0.1. Apply all, edit the master, re-apply — every machine read back with mbpoll
/// against values the test computes on its own: no override ever reaches another machine.
final class OverridesEndToEndTests: XCTestCase {
    private var sims: [SimulatorProcess] = []

    override func tearDown() {
        for s in sims { s.stop() }
        sims = []
    }

    static let page = """
        { id: "line", registers: [
          { registerId: "mode", address: 100, type: "u16", enum: [0, 1, 2] },
          { registerId: "setpoint", address: 101, type: "s16", min: -200, max: 900 },
          { registerId: "ramp", address: 102, type: "f32" },
          { registerId: "label", address: 104, type: "string(8)" },
          { registerId: "unitAddress", address: 110, type: "u16", clone: false },
          { registerId: "offset", address: 111, type: "s16", min: -100, max: 100 },
        ] }
        """

    /// The machines: m01 … m32; m07 rounds its ramp to 0.1 and is polled.
    static let machines = (1...32).map { String(format: "m%02d", $0) }
    static let rounding = "m07"

    /// What the test itself expects machine `n` to hold after a replay of a master with `setpoint`.
    static func expected(_ n: Int, setpoint master: Int) -> [UInt16] {
        let setpoint = (1...8).contains(n) ? 200 + n : master
        let ramp: Float = (1...4).contains(n) ? 12.5 : (n == 7 ? 20.0 : 20.04)
        let label = n >= 17 ? "LINE-B" : "MASTER"
        let offset = (9...16).contains(n) ? -n : 5
        let labelBytes = Array(label.utf8) + [UInt8](repeating: 0, count: 8 - label.utf8.count)
        let labelWords = stride(from: 0, to: 8, by: 2).map { UInt16(labelBytes[$0]) << 8 | UInt16(labelBytes[$0 + 1]) }
        let bits = ramp.bitPattern
        return [1, UInt16(bitPattern: Int16(setpoint)), UInt16(bits >> 16), UInt16(bits & 0xFFFF)] + labelWords
            + [0, 0] + [UInt16(n), UInt16(bitPattern: Int16(offset))]
    }

    private func startSims(_ dir: URL) throws -> (reference: Int, ports: [Int]) {
        let simConfig = dir.appendingPathComponent("sim.json")
        try "{ version: 1, devices: [], pages: [\(Self.page)] }".write(to: simConfig, atomically: true, encoding: .utf8)
        let values = dir.appendingPathComponent("reference.json")
        try #"{"mode": 1, "setpoint": 150, "ramp": 20.04, "label": "MASTER", "offset": 5, "unitAddress": 99}"#
            .write(to: values, atomically: true, encoding: .utf8)
        let base = ["--config", simConfig.path, "--page", "line", "--tcp", "127.0.0.1:0"]
        let reference = try SimulatorProcess.start(base + ["--values", values.path])
        sims.append(reference)
        var ports: [Int] = []
        for name in Self.machines {
            let sim = try SimulatorProcess.start(base + (name == Self.rounding ? ["--round-f32", "102"] : []))
            sims.append(sim)
            ports.append(sim.port!)
        }
        return (reference.port!, ports)
    }

    /// The daemon's config: m01…m16 get their unit address from the CSV, m17…m32 from the config.
    static func config(reference: Int, ports: [Int], csv: String) -> String {
        let devices = zip(machines, ports).map { name, port in
            "{ id: \"\(name)\", endpoint: \"tcp://127.0.0.1:\(port)\", unit: 1, pages: [\"line\"]"
                + (name == rounding ? ", poll: \"150ms\"" : "") + " }"
        }
        var values: [String] = [#""line-b": { label: "LINE-B" }"#]
        for (i, name) in machines.enumerated() {
            let n = i + 1
            var own: [String] = []
            if n >= 17 { own.append("unitAddress: \(n)") }
            if (1...8).contains(n) { own.append("setpoint: \(200 + n)") }
            if (1...4).contains(n) { own.append("ramp: 12.5") }
            if !own.isEmpty { values.append("\(name): { \(own.joined(separator: ", ")) }") }
        }
        return """
            { version: 1,
              devices: [ { id: "reference", endpoint: "tcp://127.0.0.1:\(reference)", unit: 1, pages: ["line"] },
                \(devices.joined(separator: ",\n    ")) ],
              pages: [\(page)],
              overrides: {
                groups: { "line-b": [\(machines[16...].map { "\"\($0)\"" }.joined(separator: ", "))] },
                values: { \(values.joined(separator: ",\n      ")) },
                tolerances: { ramp: { absolute: 0.1 } },
                csv: "\(csv)",
              },
            }
            """
    }

    private func applyAll(_ daemon: DaemonHarness) throws {
        for name in Self.machines {
            let response = try daemon.api("POST", "/v1/pages/line/apply?wait=1", #"{"device":"\#(name)"}"#)
            let job = try daemon.decode(JobInfo.self, response)
            XCTAssertEqual(job.replay?.status, .succeeded, "\(name): \(job.replay?.reason ?? job.error ?? "")")
        }
    }

    /// Every machine read with mbpoll equals what the test expects of it; returns the machines that differ.
    private func leaks(_ ports: [Int], setpoint: Int) throws -> [String] {
        var wrong: [String] = []
        for (i, port) in ports.enumerated() {
            let held = try Mbpoll.readHolding(port: port, unit: 1, address: 100, count: 12)
            if held != Self.expected(i + 1, setpoint: setpoint) { wrong.append("\(Self.machines[i]): \(held)") }
        }
        return wrong
    }

    func testThirtyTwoMachinesGetTheirOwnValuesAndAMasterEditMarksExactlyTheMachinesItChanges() throws {
        let dir = try TestPaths.temporaryDirectory(prefix: "overrides")
        let (reference, ports) = try startSims(dir)
        let csv = dir.appendingPathComponent("values.csv")
        try ("device,registerId,value\n" + (1...16).map { "m\(String(format: "%02d", $0)),unitAddress,\($0)" }.joined(separator: "\n")
            + "\n" + (9...16).map { "m\(String(format: "%02d", $0)),offset,\(-$0)" }.joined(separator: "\n") + "\n")
            .write(to: csv, atomically: true, encoding: .utf8)
        let daemon = try DaemonHarness(config: Self.config(reference: reference, ports: ports, csv: csv.path))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/line/capture?wait=1", #"{"device":"reference"}"#).status, 200)

        // The dry run names each entry's source.
        let diff = try daemon.decode(ReplayReport.self, try daemon.api("GET", "/v1/pages/line/diff?device=m20"))
        XCTAssertEqual(
            diff.registers.map { "\($0.registerId)=\($0.origin?.source.rawValue ?? "-")\($0.origin?.overrideFrom.map { " \($0)" } ?? "")" },
            [
                "mode=template", "setpoint=template", "ramp=template", "label=override group:line-b",
                "unitAddress=override device:m20", "offset=template",
            ])
        XCTAssertEqual(diff.registers.first { $0.registerId == "ramp" }?.origin?.tolerance, .absolute(0.1))
        let text = try daemon.cli(["diff", "line", "--device", "m03"])
        XCTAssertTrue(text.stdout.contains("override device:m03"), text.stdout)

        try applyAll(daemon)
        XCTAssertEqual(try leaks(ports, setpoint: 150), [], "override leaks after the first apply")

        // The applied state and the audit record keep where each value came from.
        let audit = try daemon.decode(AuditPage.self, try daemon.api("GET", "/v1/audit?device=m03&kind=replay"))
        let outcome = try XCTUnwrap(audit.records.first { $0.result == .succeeded })
        XCTAssertEqual(outcome.registers.first { $0.registerId == "setpoint" }?.origin?.overrideFrom, .device("m03"))
        XCTAssertEqual(outcome.registers.first { $0.registerId == "setpoint" }?.written?.number, 203)

        // The rounding machine conforms inside its band, drifts outside it.
        _ = try waitConformance(daemon, "conforming inside the band") { $0.state == .conforms }
        try Mbpoll.writeHolding(port: ports[6], unit: 1, address: 102, values: Self.f32(20.1))
        let written = Date().addingTimeInterval(0.2)
        let inside = try waitConformance(daemon, "re-polled") { ($0.checkedAt ?? .distantPast) > written }
        XCTAssertEqual(inside.state, .conforms, "20.1 is within 0.1 of 20.04")
        try Mbpoll.writeHolding(port: ports[6], unit: 1, address: 102, values: Self.f32(20.3))
        let outside = try waitConformance(daemon, "drifted") { $0.state == .drifted }
        XCTAssertEqual(outside.drifted.map(\.registerId), ["ramp"])
        try Mbpoll.writeHolding(port: ports[6], unit: 1, address: 102, values: Self.f32(20.0))
        _ = try waitConformance(daemon, "conforming again") { $0.state == .conforms }

        // Edit the master: a new setpoint. m01…m08 override it; every other machine is affected.
        try Mbpoll.writeHolding(port: reference, unit: 1, address: 101, values: [160])
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/line/capture?wait=1", #"{"device":"reference"}"#).status, 200)
        let rollout = try daemon.decode(Rollout.self, try daemon.api("GET", "/v1/pages/line/rollout"))
        let older = rollout.devices.filter { $0.standing == .older }.map(\.device)
        XCTAssertEqual(older, Array(Self.machines[8...]), "exactly the machines whose effective values change")
        XCTAssertEqual(
            rollout.devices.filter { $0.standing == .equivalent }.map(\.device), Array(Self.machines[..<8]))
        XCTAssertEqual(Set(rollout.devices.filter { $0.standing == .older }.compactMap(\.changes)), [["setpoint"]])

        try applyAll(daemon)
        XCTAssertEqual(try leaks(ports, setpoint: 160), [], "override leaks after the master edit")
        let after = try daemon.decode(Rollout.self, try daemon.api("GET", "/v1/pages/line/rollout"))
        XCTAssertEqual(Set(after.devices.filter { $0.device != "reference" }.map(\.standing)), [.latest])
    }

    static func f32(_ v: Float) -> [UInt16] { [UInt16(v.bitPattern >> 16), UInt16(v.bitPattern & 0xFFFF)] }

    /// Polls the rounding machine's conformance until `done` holds (10 s at most).
    private func waitConformance(_ daemon: DaemonHarness, _ what: String, _ done: (PageConformance) -> Bool) throws
        -> PageConformance
    {
        let end = Date().addingTimeInterval(10)
        var last: PageConformance?
        while Date() < end {
            let list = try daemon.decode([PageConformance].self, try daemon.api("GET", "/v1/conformance?page=line"))
            last = list.first { $0.device == Self.rounding }
            if let last, done(last) { return last }
            usleep(20_000)
        }
        throw TestSupportError("\(Self.rounding) never became \(what); last: \(String(describing: last))")
    }
}
