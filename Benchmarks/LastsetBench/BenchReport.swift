/// Everything one run measured; printed as the final JSON object.
struct BenchReport: Codable {
    /// The machine and toolchain.
    struct Machine: Codable {
        var nproc: Int
        var cpuModel: String
        var kernel: String
        var date: String
    }
    /// One implementation's timings of one operation.
    struct WireResult: Codable {
        var delayMs: Int
        var registers: Int
        /// "capture" or "replay".
        var operation: String
        /// lastset-engine, lastset-core, lastset-api, c, pymodbus, per-register.
        var impl: String
        var medianMs: Double
        var minMs: Double
        var maxMs: Double
        var runs: Int
        /// Requests one operation sent on the wire.
        var requests: Int
        /// Median CPU time of one operation in the process doing it (this process for lastset-core and
        /// lastset-engine, lastsetd for lastset-api, the worker for c, c-durable and pymodbus), ms.
        var cpuMs: Double? = nil
    }
    /// Ratios of medians for one operation.
    struct Ratio: Codable {
        var delayMs: Int
        var registers: Int
        var operation: String
        var lastsetOverC: Double?
        var lastsetCoreOverC: Double?
        var apiOverC: Double?
        /// Lastset's engine over the C loop that also writes the template file durably (capture).
        var lastsetOverDurableC: Double?
        var lastsetOverPymodbus: Double?
        var lastsetOverPerRegister: Double?
        /// The API over the C loop doing the durable minimum (1 fdatasync a capture, 2 a replay): issue 20's target.
        var apiOverCDurableMin: Double? = nil
        /// Lastset's engine over the same durable minimum.
        var lastsetOverCDurableMin: Double? = nil
        /// lastsetd's CPU per operation over the C durable minimum's (same requests, same fsyncs).
        var lastsetdCpuOverCCpu: Double? = nil
        /// lastsetd's CPU per operation over the plain C loop's (no durable write at all).
        var lastsetdCpuOverPlainCCpu: Double? = nil
    }
    /// The sync calls (fsync, fdatasync, …) one job cost, counted with strace on the process doing it.
    struct FsyncCount: Codable {
        var registers: Int
        var operation: String
        /// lastset-api (lastsetd, every thread) or c-durable-min (the C worker).
        var impl: String
        var fsyncs: Int
        /// The calls as traced (truncated), for a reader to see which descriptor each was.
        var calls: [String]
    }
    /// Requests Lastset sent against the minimum for the limits.
    struct RequestCount: Codable {
        var page: String
        var registers: Int
        var words: Int
        var maxReadRegisters: Int
        var captureRequests: Int
        var captureMinimum: Int
        var replayWrites: Int
        var replayReads: Int
        var replayMinimumWrites: Int
        /// Reads needed to verify what was written, reading everything back once at the end.
        var replayMinimumReads: Int
        /// Reads needed when every write group is verified before the next write (the old rule).
        var replayVerifyAsYouGoReads: Int
        /// Lastset's plan (`ReplayPlan.counts`): snapshot reads, window reads, final-pass reads.
        var plannedSnapshot: Int
        var plannedWindowReads: Int
        var plannedFinalPass: Int
        /// Fewest reads covering every written register once (the minimum of each of the three).
        var minimumReadPass: Int
        var replayStatus: String
        var note: String?
    }
    /// Provisioning `machines` targets at once.
    struct Provisioning: Codable {
        var delayMs: Int
        var via: String
        var machines: Int
        var registers: Int
        var medianMs: Double
        var minMs: Double
        var maxMs: Double
        var runs: Int
        /// Median wall time over the median for one machine.
        var overOneMachine: Double?
        /// Median CPU time of the simulators serving the run (every thread's run time, schedstat).
        var simulatorCPUMs: Double?
        /// Median CPU time of Lastset's side: lastsetd (api) or the bench process (engine).
        var lastsetCPUMs: Double?
        /// Median CPU time of the HTTP client (the bench process) in API runs.
        var clientCPUMs: Double? = nil
        /// Median wall time above one machine's median.
        var excessOverOneMs: Double? = nil
        /// The simulators' share of all the CPU the run took (simulators, Lastset's side, the client).
        var simulatorShareOfCPU: Double? = nil
        /// The simulators' CPU spread over every core, over the time above one machine: how much of what is
        /// left the simulators alone account for on this machine.
        var simulatorCPUOverExcess: Double? = nil
    }
    /// Capture or replay over a serial line at its real speed, against the line-rate ceiling.
    struct LineRate: Codable {
        var baud: Int
        var registers: Int
        var operation: String
        var requests: Int
        var medianMs: Double
        var minMs: Double
        var maxMs: Double
        var runs: Int
        /// Every frame's bytes at 11 bits a character, plus a 3.5-character gap before each frame.
        var ceilingMs: Double
        var overCeiling: Double
    }
    /// Resource figures of the daemon.
    struct Daemon: Codable {
        var devices: Int
        var timeToReadyMs: Samples
        var idleSeconds: Int
        var cpuSecondsPollingOff: Double
        var cpuSecondsPollingOn: Double
        var pollIntervalSeconds: Int
        var devicesReachableWithPolling: Int
        var peakRSSKiBPollingOff: Int
        var peakRSSKiBPollingOn: Int
        var threadsPollingOff: Int
        var threadsPollingOn: Int
        var apiDaemonPeakRSSKiBAfterWire: Int?
        var apiDaemonRSSKiBAfterWire: Int?
        var apiDaemonAnonKiBAfterWire: Int?
        /// Anonymous memory of the idle daemon (100 devices, polling off).
        var anonKiBPollingOff: Int?
    }

    /// Many devices polled every second (issue 20: ≤ 10 % of one core, ≤ 64 MiB).
    struct Polling: Codable {
        var devices: Int
        var simulators: Int
        /// Registers (words) of each device's page: one read a poll.
        var words: Int
        var pollIntervalSeconds: Int
        var warmupSeconds: Int
        var windowSeconds: Double
        /// lastsetd's CPU over the window (every thread's run time).
        var cpuSeconds: Double
        var cpuPercentOfOneCore: Double
        /// The largest VmRSS of one reading a second over the window.
        var maxRSSKiB: Int
        var rssSamples: Int
        /// VmHWM at the end (start-up included).
        var peakRSSKiB: Int
        var anonKiB: Int
        var threads: Int
        var reachableBefore: Int
        var reachableAfter: Int
        /// Requests the simulators served over the window, a second.
        var readsPerSecond: Double
        var simulatorCPUPercentOfOneCore: Double
    }

    /// One JSON shape written by the fast writer, timed in this process (`encode`).
    struct Encoding: Codable {
        var shape: String
        var registers: Int
        var bytes: Int
        var medianMs: Double
        var minMs: Double
        var maxMs: Double
        var runs: Int
    }

    var machine: Machine
    var settings: [String: String] = [:]
    var wire: [WireResult] = []
    var ratios: [Ratio] = []
    var fsyncs: [FsyncCount] = []
    var requestCounts: [RequestCount] = []
    var provisioning: [Provisioning] = []
    var rtu: [LineRate] = []
    var daemon: Daemon?
    var polling: Polling?
    /// The same devices backed up as found on schedule instead of polled (`pollIntervalSeconds`: the backup interval).
    var backups: Polling?
    var encoding: [Encoding] = []
    var notes: [String] = []
}
