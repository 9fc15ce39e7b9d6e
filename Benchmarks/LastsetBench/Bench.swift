import Foundation
import Glibc
import LastsetCore
import LastsetEngine
import ModbusLink

/// One benchmark run: a temp directory with the generated configs, the child processes, the results.
final class Bench {
    let options: BenchOptions
    /// Scratch directory for configs, data directories, sockets and logs.
    let temp: String
    var report: BenchReport
    /// Peak RSS of the wire suite's daemon (10,000-register pages), for the daemon figures.
    var wireDaemonPeakRSS: Int?
    /// RSS the capture/replay daemon still holds after the wire runs.
    var wireDaemonRSS: Int?
    /// Anonymous memory (RssAnon) the capture/replay daemon still holds after the wire runs.
    var wireDaemonAnon: Int?
    /// Stops what was started, in reverse order.
    private var cleanups: [() -> Void] = []

    init(options: BenchOptions) throws {
        self.options = options
        var template = Array("/tmp/lastset-bench.XXXXXX".utf8CString)
        guard let dir = mkdtemp(&template) else { throw BenchError("mkdtemp failed: errno \(errno)") }
        temp = String(cString: dir)
        report = BenchReport(machine: Self.machine())
        report.settings = [
            "reps": String(options.reps), "slowReps": String(options.slowReps), "slowReps10k": String(options.slowReps10k),
            "perRegisterSlowReps": String(options.perRegisterSlowReps),
            "perRegisterSlowReps10k": String(options.perRegisterSlowReps10k),
            "provisionReps": String(options.provisionReps), "idleSeconds": String(options.idleSeconds),
            "sizes": options.sizes.map(String.init).joined(separator: ","),
            "delaysMs": options.delays.map(String.init).joined(separator: ","),
        ]
    }

    /// Path of a built tool (lastsetd, lastset-sim).
    func tool(_ name: String) -> String { "\(options.binDirectory)/\(name)" }

    /// Values written by `changeFirstRegister`, so that no two captures of a page read the same content.
    private var changes = 0

    /// Writes a fresh value to the page's first register (untimed, before a timed capture): a capture
    /// identical to the latest version archives nothing ("unchanged"), which would skip the very archive
    /// and audit work being measured. The value stays in u16/s16 range and is never the "not set" default.
    func changeFirstRegister(of page: CompiledPage, on target: DeviceTarget) async throws {
        guard let first = page.registers.first?.definition else { throw BenchError("page \(page.id) has no register") }
        changes += 1
        let value = UInt16(1000 + changes % 20000)
        let unit = target.unit
        let failure = await target.connection.batch { c -> ModbusError? in
            do throws(ModbusError) {
                try c.writeRegister(unit: unit, address: first.address, value: value)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw BenchError("changing \(first.registerId) of \(target.label) before a capture: \(failure)") }
    }

    /// Registers something to stop at the end of the run.
    func onExit(_ body: @escaping () -> Void) { cleanups.append(body) }

    /// Progress on stderr (the table and JSON go to stdout).
    func say(_ text: String) {
        FileHandle.standardError.write(
            Data("[bench \(String(format: "%6.1f", (ContinuousClock.now - started).seconds))s] \(text)\n".utf8))
    }
    private let started = ContinuousClock.now

    /// Runs the selected suites; false when one failed (the report so far is still printed).
    func run() async -> Bool {
        var ok = true
        say("scratch directory \(temp)")
        do {
            if options.suites.contains("wire") { try await wireSuite() }
            if options.suites.contains("counts") { try await countSuite() }
            if options.suites.contains("provision") { try await provisionSuite() }
            if options.suites.contains("rtu") { try await rtuSuite() }
            if options.suites.contains("daemon") { try daemonSuite() }
            if options.suites.contains("poll") { try pollSuite() }
            if options.suites.contains("backup") { try backupSuite() }
            if options.suites.contains("encode") { try encodeSuite() }
        } catch {
            say("FAILED: \(error)")
            report.notes.append("run failed: \(error)")
            ok = false
        }
        for c in cleanups.reversed() { c() }
        cleanups = []
        printTable()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        if let data = try? encoder.encode(report) {
            print(String(decoding: data, as: UTF8.self))
            if let out = options.jsonOut { _ = FileManager.default.createFile(atPath: out, contents: data) }
        }
        if !options.keepTemp && ok { try? FileManager.default.removeItem(atPath: temp) }
        return ok
    }

    /// Writes a file into the scratch directory and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        let path = "\(temp)/\(name)"
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw BenchError("cannot write \(path): \(error)")
        }
        return path
    }

    /// Loads a generated config with Lastset's own loader.
    func load(_ path: String) throws -> CompiledConfig {
        do {
            return try ConfigLoader.load(path: path)
        } catch {
            throw BenchError("generated config \(path) does not load: \(error)")
        }
    }

    private static func machine() -> BenchReport.Machine {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
            ?? "unknown"
        var u = utsname()
        uname(&u)
        let release = withUnsafeBytes(of: &u.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let date = ISO8601DateFormatter().string(from: Date())
        return BenchReport.Machine(nproc: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), cpuModel: model, kernel: release, date: date)
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
