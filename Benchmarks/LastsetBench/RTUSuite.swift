import Foundation
import LastsetCore
import LastsetEngine
import ModbusLink

/// Capture and replay over a serial line at its real speed: `baud_relay.py` between two ptys delivers
/// bytes at 11 bits a character (8E1) with the 3.5-character gap between frames, `lastset-sim` serves
/// the page on one pty and the engine talks RTU on the other. Compared with the line-rate ceiling: every
/// request's and reply's bytes at that rate plus one gap before each frame.
extension Bench {
    /// Baud rates measured.
    static let rtuBauds = [19200, 115_200]

    func rtuSuite() async throws {
        let words = options.rtuWords
        let page = BenchPage.contiguous(id: "r\(words)", words: words)
        let configPath = "\(temp)/rtu-pages.json"
        try BenchConfig.write(path: configPath, pages: [page], devices: [])
        let config = try load(configPath)
        guard let definition = config.page(page.id) else { throw BenchError("page \(page.id) missing from \(configPath)") }
        let values = try file("values-\(page.id).json", page.valuesJSON)
        let engine = try Engine(dataDirectory: URL(fileURLWithPath: "\(temp)/rtu-data"), historyLimit: 5)
        for baud in Self.rtuBauds {
            let relay = try ChildProcess(
                name: "relay-\(baud)", executable: options.python,
                arguments: ["-u", options.relayScript, String(baud), "11"], logDirectory: temp)
            defer { relay.stop(grace: .seconds(2)) }
            let ready = try relay.waitFor(prefix: "READY", timeout: .seconds(30)).split(separator: " ")
            guard ready.count == 3 else { throw BenchError("baud relay: unexpected \"\(ready.joined(separator: " "))\"") }
            let (clientPath, devicePath) = (String(ready[1]), String(ready[2]))
            let sim = try ChildProcess(
                name: "sim-rtu-\(baud)", executable: tool("lastset-sim"),
                arguments: [
                    "--config", configPath, "--page", page.id, "--rtu", devicePath, "--baud", String(baud), "--parity", "E",
                    "--values", values,
                ], logDirectory: temp)
            defer { sim.stop(grace: .seconds(3)) }
            _ = try sim.waitFor(prefix: "READY", timeout: .seconds(30))
            var limits = DeviceLimits()
            limits.timeout = .seconds(3)
            let endpoint = Endpoint.rtu(Endpoint.SerialLine(path: clientPath, baud: baud, parity: "E"))
            let connection = ModbusConnection(endpoint: endpoint, options: LinkOptions(limits))
            let target = DeviceTarget(deviceId: "rtu", endpoint: endpoint, unit: 1, limits: limits, connection: connection)

            // The ceiling: bytes of every frame at 11 bits a character, a 3.5-character gap before each.
            let char = 11.0 / Double(baud)
            func frameSeconds(_ bytes: Int) -> Double { (Double(bytes) + 3.5) * char }
            let readPlan = RequestPlanner.reads(
                definition.registers.map { AddressSpan(address: $0.definition.address, length: $0.definition.length) },
                limits: limits)
            let captureCeiling = readPlan.reduce(0.0) { $0 + frameSeconds(8) + frameSeconds(5 + 2 * ($1.end - $1.address)) }
            let replayOps = BenchOp.replay(of: definition, limits: limits).ops
            let replayCeiling = replayOps.reduce(0.0) { sum, op in
                sum
                    + (op.write
                        ? frameSeconds(9 + 2 * op.count) + frameSeconds(8) : frameSeconds(8) + frameSeconds(5 + 2 * op.count))
            }

            // Warm-up: connects and archives the template the replays use.
            guard await engine.capture(page: definition, from: target, who: "bench").archived else {
                throw BenchError("RTU capture at \(baud) baud did not archive")
            }
            var capture = Samples()
            var replay = Samples()
            var captureRequests = 0
            var replayRequests = 0
            let clock = ContinuousClock()
            for _ in 0..<options.rtuReps {
                try await changeFirstRegister(of: definition, on: target)
                var before = await connection.counters
                var start = clock.now
                let c = await engine.capture(page: definition, from: target, who: "bench")
                capture.add(clock.now - start)
                guard c.archived else { throw BenchError("RTU capture at \(baud) baud: \(c.error ?? "not archived")") }
                captureRequests = await connection.counters.total - before.total
                before = await connection.counters
                start = clock.now
                let r = try await engine.apply(page: definition, to: target, options: ReplayOptions(), who: "bench")
                replay.add(clock.now - start)
                guard r.status == .succeeded else { throw BenchError("RTU replay at \(baud) baud ended \(r.status)") }
                replayRequests = await connection.counters.total - before.total
            }
            await connection.close()
            for (op, samples, ceiling, requests) in [
                ("capture", capture, captureCeiling, captureRequests), ("replay", replay, replayCeiling, replayRequests),
            ] {
                report.rtu.append(
                    BenchReport.LineRate(
                        baud: baud, registers: words, operation: op, requests: requests, medianMs: samples.median,
                        minMs: samples.min, maxMs: samples.max, runs: samples.runsMs.count, ceilingMs: ceiling * 1000,
                        overCeiling: samples.median / (ceiling * 1000)))
            }
            say("rtu: \(baud) baud done")
        }
    }
}
