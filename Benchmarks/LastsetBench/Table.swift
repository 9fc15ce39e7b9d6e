import Foundation

/// The human-readable tables (Markdown, so docs/BENCHMARKS.md can quote them as printed).
extension Bench {
    func printTable() {
        var out =
            "\n## Machine\n\n\(report.machine.nproc) CPUs, \(report.machine.cpuModel), Linux \(report.machine.kernel), \(report.machine.date)\n"
        if !report.wire.isEmpty {
            out += "\n## Capture and replay: median [min–max] ms (requests per operation)\n\n"
            out +=
                "| delay | registers | operation | " + Self.implementations.joined(separator: " | ")
                + " | Lastset/C | core/C | API/C | API/C-durable-min | Lastset/C-durable-min | Lastset/C-durable | Lastset/pymodbus | Lastset/per-register |\n"
            out += "|---|---|---|" + String(repeating: "---|", count: Self.implementations.count + 8) + "\n"
            for ratio in report.ratios {
                let cells = Self.implementations.map { impl -> String in
                    guard
                        let w = report.wire.first(where: {
                            $0.delayMs == ratio.delayMs && $0.registers == ratio.registers && $0.operation == ratio.operation
                                && $0.impl == impl
                        })
                    else { return "—" }
                    return "\(Format.ms(w.medianMs)) [\(Format.ms(w.minMs))–\(Format.ms(w.maxMs))] (\(w.requests))"
                        + (w.runs < 3 ? " n=\(w.runs)" : "")
                }
                out +=
                    "| \(ratio.delayMs) ms | \(ratio.registers) | \(ratio.operation) | " + cells.joined(separator: " | ")
                    + " | \(Format.ratio(ratio.lastsetOverC)) | \(Format.ratio(ratio.lastsetCoreOverC)) | \(Format.ratio(ratio.apiOverC)) | \(Format.ratio(ratio.apiOverCDurableMin)) | \(Format.ratio(ratio.lastsetOverCDurableMin)) | \(Format.ratio(ratio.lastsetOverDurableC)) | \(Format.ratio(ratio.lastsetOverPymodbus)) | \(Format.ratio(ratio.lastsetOverPerRegister)) |\n"
            }
        }
        if report.wire.contains(where: { $0.cpuMs != nil }) {
            let impls = ["lastset-core", "lastset-engine", "lastset-api", "c", "c-durable", "c-durable-min", "pymodbus"]
            out += "\n## CPU per operation: median ms of the process doing it\n\n"
            out +=
                "Lastset's core and engine: the benchmark process; the API: lastsetd (not the HTTP client); C and pymodbus: their worker. "
                + "The simulators' CPU and time spent waiting (wire, disk) are not in it.\n\n"
            out +=
                "| delay | registers | operation | " + impls.joined(separator: " | ")
                + " | core/C | engine/C | API/C | engine/C-durable | API/C-durable-min (lastsetdCpuOverCCpu) |\n"
            out += "|---|---|---|" + String(repeating: "---|", count: impls.count + 5) + "\n"
            for ratio in report.ratios {
                func cpu(_ impl: String) -> Double? {
                    report.wire.first(where: {
                        $0.delayMs == ratio.delayMs && $0.registers == ratio.registers && $0.operation == ratio.operation
                            && $0.impl == impl
                    })?.cpuMs
                }
                func over(_ a: String, _ b: String) -> String {
                    guard let x = cpu(a), let y = cpu(b), y > 0 else { return "—" }
                    return Format.ratio(x / y)
                }
                let cells = impls.map { cpu($0).map { Format.ms($0) } ?? "—" }
                out +=
                    "| \(ratio.delayMs) ms | \(ratio.registers) | \(ratio.operation) | " + cells.joined(separator: " | ")
                    + " | \(over("lastset-core", "c")) | \(over("lastset-engine", "c")) | \(over("lastset-api", "c")) | \(over("lastset-engine", "c-durable")) | \(over("lastset-api", "c-durable-min")) |\n"
            }
        }
        if !report.fsyncs.isEmpty {
            out += "\n## fsyncs per job (strace -f on the process doing it, one job each)\n\n"
            out += "lastsetd: every thread of the daemon while one API job ran; C durable minimum: its worker.\n\n"
            out += "| registers | operation | lastsetd | C durable minimum |\n|---|---|---|---|\n"
            for f in report.fsyncs where f.impl == "lastset-api" {
                let minimum = report.fsyncs.first {
                    $0.impl == "c-durable-min" && $0.registers == f.registers && $0.operation == f.operation
                }
                out += "| \(f.registers) | \(f.operation) | \(f.fsyncs) | \(minimum.map { String($0.fsyncs) } ?? "—") |\n"
            }
        }
        if !report.requestCounts.isEmpty {
            out += "\n## Requests against the minimum\n\n"
            out +=
                "Replay reads on the wire = snapshot + window reads + final pass (Lastset's plan); each against its minimum"
                + " (the fewest reads covering every register once). \"verify each write\" is what reading back every write"
                + " group separately would send.\n\n"
            out +=
                "| page | registers (words) | maxRead | capture / min | writes / min | snapshot / min | window reads / min | final pass / min | replay reads on the wire / min | verify each write | replay |\n"
            out += "|---|---|---|---|---|---|---|---|---|---|---|\n"
            for c in report.requestCounts {
                let m = c.minimumReadPass
                out +=
                    "| \(c.page) | \(c.registers) (\(c.words)) | \(c.maxReadRegisters) | \(c.captureRequests) / \(c.captureMinimum) | \(c.replayWrites) / \(c.replayMinimumWrites) | \(c.plannedSnapshot) / \(m) | \(c.plannedWindowReads) / \(m) | \(c.plannedFinalPass) / \(m) | \(c.replayReads) / \(3 * m) | \(c.plannedSnapshot + c.replayVerifyAsYouGoReads + c.plannedFinalPass) | \(c.replayStatus)\(c.note.map { ": " + $0.prefix(120) } ?? "") |\n"
            }
        }
        if !report.provisioning.isEmpty {
            out += "\n## Provisioning machines at once (replay with verification)\n\n"
            out +=
                "CPU: every thread's run time (schedstat), medians. \"time above one\": the median minus one machine's;"
                + " \"simulators' CPU / cores over it\": the simulators' CPU spread over all \(report.machine.nproc) cores, over that time.\n\n"
            out +=
                "| delay | via | machines | registers | median [min–max] ms | × one machine | simulators' CPU ms | Lastset's CPU ms | client CPU ms | simulators' share of the CPU | time above one ms | simulators' CPU / cores over it |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n"
            func percent(_ v: Double?) -> String { v.map { String(format: "%.0f %%", $0 * 100) } ?? "—" }
            for p in report.provisioning {
                out +=
                    "| \(p.delayMs) ms | \(p.via) | \(p.machines) | \(p.registers) | \(Format.ms(p.medianMs)) [\(Format.ms(p.minMs))–\(Format.ms(p.maxMs))] | \(Format.ratio(p.overOneMachine)) | \(p.simulatorCPUMs.map { Format.ms($0) } ?? "—") | \(p.lastsetCPUMs.map { Format.ms($0) } ?? "—") | \(p.clientCPUMs.map { Format.ms($0) } ?? "—") | \(percent(p.simulatorShareOfCPU)) | \(p.excessOverOneMs.map { Format.ms($0) } ?? "—") | \(percent(p.simulatorCPUOverExcess)) |\n"
            }
        }
        if !report.rtu.isEmpty {
            out += "\n## RTU at the line's real speed (8E1, 11 bits a character, 3.5-character gaps)\n\n"
            out += "| baud | registers | operation | requests | median [min–max] ms | line-rate ceiling ms | × ceiling |\n"
            out += "|---|---|---|---|---|---|---|\n"
            for r in report.rtu {
                out +=
                    "| \(r.baud) | \(r.registers) | \(r.operation) | \(r.requests) | \(Format.ms(r.medianMs)) [\(Format.ms(r.minMs))–\(Format.ms(r.maxMs))] | \(Format.ms(r.ceilingMs)) | \(Format.ratio(r.overCeiling)) |\n"
            }
        }
        if let d = report.daemon {
            out += "\n## Daemon resources (\(d.devices) devices configured)\n\n"
            out += "| figure | value |\n|---|---|\n"
            out +=
                "| time from start to READY=1 (median [min–max], \(d.timeToReadyMs.runsMs.count) starts) | \(d.timeToReadyMs.text) ms |\n"
            out +=
                "| CPU time over \(d.idleSeconds) s idle, polling off | \(String(format: "%.2f", d.cpuSecondsPollingOff)) s |\n"
            out +=
                "| CPU time over \(d.idleSeconds) s, polling every \(d.pollIntervalSeconds) s (\(d.devicesReachableWithPolling) devices reachable) | \(String(format: "%.2f", d.cpuSecondsPollingOn)) s |\n"
            out += "| peak RSS, polling off / on | \(d.peakRSSKiBPollingOff / 1024) MiB / \(d.peakRSSKiBPollingOn / 1024) MiB |\n"
            out += "| threads, polling off / on | \(d.threadsPollingOff) / \(d.threadsPollingOn) |\n"
            if let w = d.apiDaemonRSSKiBAfterWire {
                out += "| RSS the capture/replay daemon holds after the wire runs (10,000-register pages) | \(w / 1024) MiB |\n"
            }
            if let w = d.apiDaemonAnonKiBAfterWire, let idle = d.anonKiBPollingOff {
                out +=
                    "| of it anonymous memory (RssAnon: heap and stacks; the rest is shared library pages), after the wire runs / idle daemon | \(String(format: "%.1f", Double(w) / 1024)) MiB / \(String(format: "%.1f", Double(idle) / 1024)) MiB |\n"
            }
            if let w = d.apiDaemonPeakRSSKiBAfterWire {
                out += "| peak RSS of the capture/replay daemon after the wire runs (10,000-register pages) | \(w / 1024) MiB |\n"
            }
        }
        for (p, what) in [(report.polling, "polled"), (report.backups, "backed up as found (nothing changing)")] {
            guard let p else { continue }
            out +=
                "\n## \(p.devices) devices \(what) every \(p.pollIntervalSeconds) s (\(p.simulators) simulators, \(p.words) registers each)\n\n"
            out += "| figure | value |\n|---|---|\n"
            out +=
                "| lastsetd CPU over \(String(format: "%.1f", p.windowSeconds)) s after a \(p.warmupSeconds) s warm-up | \(String(format: "%.2f", p.cpuSeconds)) s = \(String(format: "%.1f", p.cpuPercentOfOneCore)) % of one core |\n"
            out +=
                "| lastsetd RSS, largest of \(p.rssSamples) readings (one a second) | \(String(format: "%.1f", Double(p.maxRSSKiB) / 1024)) MiB |\n"
            out +=
                "| VmHWM (start-up included) / RssAnon at the end | \(String(format: "%.1f", Double(p.peakRSSKiB) / 1024)) MiB / \(String(format: "%.1f", Double(p.anonKiB) / 1024)) MiB |\n"
            out += "| threads | \(p.threads) |\n"
            out += "| reads the simulators answered, a second | \(String(format: "%.0f", p.readsPerSecond)) |\n"
            out += "| devices reachable before / after the window | \(p.reachableBefore) / \(p.reachableAfter) |\n"
            out += "| simulators' CPU (all of them) | \(String(format: "%.1f", p.simulatorCPUPercentOfOneCore)) % of one core |\n"
        }
        if !report.encoding.isEmpty {
            out += "\n## JSON written by a replay and a capture, this process: median [min–max] ms (bytes)\n\n"
            out += "| shape | registers | time | bytes |\n|---|---|---|---|\n"
            for e in report.encoding {
                out +=
                    "| \(e.shape) | \(e.registers) | \(Format.ms(e.medianMs)) [\(Format.ms(e.minMs))–\(Format.ms(e.maxMs))] | \(e.bytes) |\n"
            }
        }
        for note in report.notes { out += "\nNote: \(note)\n" }
        print(out)
    }
}
