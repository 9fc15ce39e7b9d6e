import Foundation
import LastsetCore
import LastsetEngine
import ModbusLink

/// Requests on the wire against the minimum the device's limits allow: contiguous pages and a page
/// with gaps, with the default limits and with `maxReadRegisters: 40` (served by a simulator that
/// enforces 40, so an oversized read would fail instead of passing unnoticed).
extension Bench {
    func countSuite() async throws {
        var pages = options.sizes.map { BenchPage.contiguous(id: "p\($0)", words: $0) }
        pages.append(BenchPage.withGaps(id: "pgaps", count: 300))
        let configPath = "\(temp)/count-pages.json"
        try BenchConfig.write(path: configPath, pages: pages, devices: [])
        let config = try load(configPath)
        let engine = try Engine(dataDirectory: URL(fileURLWithPath: "\(temp)/count-data"), historyLimit: 5)
        for page in pages {
            guard let definition = config.page(page.id) else { throw BenchError("page \(page.id) missing from \(configPath)") }
            let values = try file("values-\(page.id).json", page.valuesJSON)
            for maxRead in [125, 40] {
                let sim = try SimServer(
                    executable: tool("lastset-sim"), config: configPath, page: page.id, values: values, delayMs: 0,
                    maxRead: maxRead == 125 ? nil : maxRead, name: "sim-count-\(page.id)-\(maxRead)", logDirectory: temp)
                defer { sim.stop() }
                var limits = DeviceLimits()
                limits.maxReadRegisters = maxRead
                let endpoint = Endpoint.tcp(host: "127.0.0.1", port: sim.port)
                let connection = ModbusConnection(endpoint: endpoint, options: LinkOptions(limits))
                let target = DeviceTarget(deviceId: "count", endpoint: endpoint, unit: 1, limits: limits, connection: connection)

                try await changeFirstRegister(of: definition, on: target)
                await connection.resetCounters()
                let capture = await engine.capture(page: definition, from: target, who: "bench")
                let afterCapture = await connection.counters
                guard capture.archived else {
                    throw BenchError(
                        "count capture of \(page.id) (maxRead \(maxRead)) did not archive: \(capture.problems.prefix(3)) \(capture.error ?? "")"
                    )
                }
                await connection.resetCounters()
                var status = "failed"
                var note: String?
                do {
                    let replay = try await engine.apply(page: definition, to: target, options: ReplayOptions(), who: "bench")
                    status = replay.status.rawValue
                    if replay.status != .succeeded {
                        note = [replay.reason, replay.stoppedAt].compactMap { $0 }.joined(separator: "; ")
                    }
                } catch {
                    note = "\(error)"
                }
                let afterReplay = await connection.counters
                let minWrites = MinimumPlan.writes(page, maxWrite: 123)
                let planned = BenchOp.replay(of: definition, limits: limits).counts
                let result = BenchReport.RequestCount(
                    page: page.id, registers: page.registers.count, words: page.words, maxReadRegisters: maxRead,
                    captureRequests: afterCapture.total, captureMinimum: MinimumPlan.reads(page, maxRead: maxRead, maxGap: 8),
                    replayWrites: afterReplay.writes, replayReads: afterReplay.reads, replayMinimumWrites: minWrites,
                    replayMinimumReads: MinimumPlan.reads(page, maxRead: maxRead, maxGap: 8),
                    replayVerifyAsYouGoReads: verifyAsYouGoReads(page, maxRead: maxRead), plannedSnapshot: planned.snapshot,
                    plannedWindowReads: planned.windowReads, plannedFinalPass: planned.finalPass,
                    minimumReadPass: MinimumPlan.reads(page, maxRead: maxRead, maxGap: 8), replayStatus: status, note: note)
                report.requestCounts.append(result)
                say(
                    "counts: \(page.id) maxRead \(maxRead): capture \(result.captureRequests) (min \(result.captureMinimum)), replay \(result.replayWrites)+\(result.replayReads) (\(status))"
                )
            }
        }
    }

    /// Reads needed when each FC16 group is read back before the next write and no read exceeds
    /// `maxRead`: every write run of ≤ 123 words, read in chunks of ≤ `maxRead` (registers unsplit).
    private func verifyAsYouGoReads(_ page: BenchPage, maxRead: Int) -> Int {
        // Split the page into the write runs of the minimal write plan, then count reads per run.
        var runs: [[BenchPage.Register]] = []
        var runEnd = -1
        var used = 0
        for r in page.registers {
            if r.address == runEnd && used + r.length <= 123, !runs.isEmpty {
                runs[runs.count - 1].append(r)
                used += r.length
            } else {
                runs.append([r])
                used = r.length
            }
            runEnd = r.address + r.length
        }
        return runs.reduce(0) { $0 + MinimumPlan.reads(BenchPage(id: "run", registers: $1), maxRead: maxRead, maxGap: 0) }
    }
}
