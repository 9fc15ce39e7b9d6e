import Foundation
import LastsetClient

/// Resource figures of lastsetd with 100 configured devices (10 simulators × 10 unit ids, a 20-register
/// page each): time to READY, CPU time over an idle window with polling off and with polling every
/// second (both daemons run through the same window), and peak RSS.
extension Bench {
    func daemonSuite() throws {
        let page = BenchPage.contiguous(id: "small", words: 20)
        let pagesPath = "\(temp)/daemon-pages.json"
        try BenchConfig.write(path: pagesPath, pages: [page], devices: [])
        let values = try file("values-small.json", page.valuesJSON)
        var sims: [SimServer] = []
        defer { for s in sims { s.stop() } }
        for i in 0..<10 {
            sims.append(
                try SimServer(
                    executable: tool("lastset-sim"), config: pagesPath, page: page.id, values: values, delayMs: 0,
                    name: "sim-daemon-\(i)",
                    logDirectory: temp))
        }
        func devices(poll: String?) -> [BenchConfig.Device] {
            (0..<100).map { i in
                BenchConfig.Device(
                    id: String(format: "m%03d", i + 1), port: sims[i % 10].port, unit: 1 + i / 10, pages: [page.id], poll: poll)
            }
        }
        let offPath = "\(temp)/daemon-100-off.json"
        let onPath = "\(temp)/daemon-100-on.json"
        try BenchConfig.write(path: offPath, pages: [page], devices: devices(poll: nil))
        try BenchConfig.write(path: onPath, pages: [page], devices: devices(poll: "1s"))
        _ = try load(offPath)

        var ready = Samples()
        for i in 0..<options.readyReps {
            let d = try DaemonProcess(
                executable: tool("lastsetd"), config: offPath, directory: "\(temp)/ready-\(i)", name: "lastsetd-ready-\(i)",
                logDirectory: temp)
            ready.add(d.timeToReady)
            d.stop()
        }
        say("daemon: time to READY \(ready.text) ms; idle window \(options.idleSeconds) s with polling off and on")
        let off = try DaemonProcess(
            executable: tool("lastsetd"), config: offPath, directory: "\(temp)/idle-off", name: "lastsetd-idle-off",
            logDirectory: temp)
        defer { off.stop() }
        let on = try DaemonProcess(
            executable: tool("lastsetd"), config: onPath, directory: "\(temp)/idle-on", name: "lastsetd-idle-on",
            logDirectory: temp)
        defer { on.stop() }
        // Let start-up work (and the first poll round) finish before the window opens.
        Thread.sleep(forTimeInterval: 2)
        let off0 = try off.stats()
        let on0 = try on.stats()
        Thread.sleep(forTimeInterval: Double(options.idleSeconds))
        let off1 = try off.stats()
        let on1 = try on.stats()
        let reachable = try reachableDevices(on)
        report.daemon = BenchReport.Daemon(
            devices: 100, timeToReadyMs: ready, idleSeconds: options.idleSeconds,
            cpuSecondsPollingOff: off1.cpuSeconds - off0.cpuSeconds,
            cpuSecondsPollingOn: on1.cpuSeconds - on0.cpuSeconds, pollIntervalSeconds: 1, devicesReachableWithPolling: reachable,
            peakRSSKiBPollingOff: off1.peakRSSKiB, peakRSSKiBPollingOn: on1.peakRSSKiB, threadsPollingOff: off1.threads,
            threadsPollingOn: on1.threads, apiDaemonPeakRSSKiBAfterWire: wireDaemonPeakRSS,
            apiDaemonRSSKiBAfterWire: wireDaemonRSS, apiDaemonAnonKiBAfterWire: wireDaemonAnon,
            anonKiBPollingOff: off1.anonKiB)
        say("daemon: done")
    }
}
