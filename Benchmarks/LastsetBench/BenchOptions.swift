import Foundation

/// The command line of `lastset-bench` (see `usage`).
struct BenchOptions {
    var binDirectory = ""
    var cWorker = ""
    var python = ""
    var pythonScript = ""
    var jsonOut: String?
    var reps = 7
    var slowReps = 5
    var slowReps10k = 3
    var perRegisterSlowReps = 3
    var perRegisterSlowReps10k = 1
    var provisionReps = 3
    var idleSeconds = 60
    var readyReps = 5
    var sizes = [100, 1000, 10000]
    var delays = [0, 2]
    var suites: Set<String> = ["wire", "counts", "provision", "rtu", "daemon", "poll", "encode"]
    /// Every suite `--only` may name.
    static let knownSuites: Set<String> = ["wire", "counts", "provision", "rtu", "daemon", "poll", "backup", "encode"]
    var pollDevices = 1000
    var pollSimulators = 10
    var pollWords = 20
    var pollSeconds = 60
    var pollWarmupSeconds = 10
    /// The backup suite's interval (seconds).
    var backupIntervalSeconds = 60
    var rtuWords = 1000
    var rtuReps = 3
    var relayScript = ""
    var keepTemp = false
    /// Wire implementations to run (nil: all); for quick A/B runs of one path against the C loop.
    var impls: [String]?

    static let usage = """
        usage: lastset-bench --c-worker PATH --python PATH --py-script PATH [--bin DIR] [--json-out FILE]
                             [--reps N] [--slow-reps N] [--slow-reps-10k N] [--perreg-slow-reps N]
                             [--perreg-slow-reps-10k N] [--provision-reps N] [--idle-seconds N] [--ready-reps N]
                             [--sizes 100,1000,10000] [--delays 0,2]
                             [--only wire,counts,provision,rtu,daemon,poll,backup,encode]
                             [--poll-devices N] [--poll-simulators N] [--poll-words N] [--poll-seconds N]
                             [--poll-warmup N] [--backup-interval N]
                             [--rtu-words N] [--rtu-reps N] [--relay-script PATH] [--keep-temp]
                             [--impls lastset-core,c,...]

        Starts lastset-sim servers and lastsetd on 127.0.0.1 and compares, interleaved and repeated, Lastset's
        capture and replay with a C libmodbus loop, a pymodbus client and the per-register approach; counts
        requests against the minimum; provisions 1, 8 and 32 machines at once; measures the daemon's RSS,
        idle CPU and time to READY; polls --poll-devices devices (default 1,000 on 10 simulators, 20 registers
        each) every second and measures lastsetd's CPU and RSS over --poll-seconds (60) after --poll-warmup
        (10); backs the same devices up as found every --backup-interval seconds (60; only with --only backup) and
        measures the same once every device has its first record; times the JSON a replay and a capture write, in this process (encode). Prints a table and, last, one JSON object. --bin defaults to the
        directory of this executable (lastsetd and lastset-sim are looked up there). Benchmarks/run.sh
        (make bench) builds everything and passes the paths. --impls runs only the named wire
        implementations (e.g. lastset-core,c for a quick core/C check); the full comparison runs them all.
        """

    static func parse(_ arguments: [String]) throws -> BenchOptions {
        var o = BenchOptions()
        o.binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let v = rest.popFirst() else { throw BenchError("\(flag) needs a value") }
            return v
        }
        func count(_ flag: String, _ range: ClosedRange<Int>) throws -> Int {
            let text = try value(flag)
            guard let n = Int(text), range.contains(n) else { throw BenchError("\(flag): \"\(text)\" is not in \(range)") }
            return n
        }
        func list(_ flag: String) throws -> [Int] {
            let text = try value(flag)
            let items = text.split(separator: ",").map { Int($0) }
            guard !items.isEmpty, items.allSatisfy({ $0 != nil && $0! >= 0 }) else {
                throw BenchError("\(flag): \"\(text)\" is not a list of numbers")
            }
            return items.map { $0! }
        }
        while let arg = rest.popFirst() {
            switch arg {
            case "--bin": o.binDirectory = try value(arg)
            case "--c-worker": o.cWorker = try value(arg)
            case "--python": o.python = try value(arg)
            case "--py-script": o.pythonScript = try value(arg)
            case "--json-out": o.jsonOut = try value(arg)
            case "--reps": o.reps = try count(arg, 1...1000)
            case "--slow-reps": o.slowReps = try count(arg, 1...1000)
            case "--slow-reps-10k": o.slowReps10k = try count(arg, 1...1000)
            case "--perreg-slow-reps": o.perRegisterSlowReps = try count(arg, 0...1000)
            case "--perreg-slow-reps-10k": o.perRegisterSlowReps10k = try count(arg, 0...1000)
            case "--provision-reps": o.provisionReps = try count(arg, 1...100)
            case "--idle-seconds": o.idleSeconds = try count(arg, 1...3600)
            case "--ready-reps": o.readyReps = try count(arg, 1...100)
            case "--sizes":
                o.sizes = try list(arg)
                guard o.sizes.allSatisfy({ (4...20000).contains($0) && $0 % 4 == 0 }) else {
                    throw BenchError("--sizes: each size must be a multiple of 4 in 4...20000, got \(o.sizes)")
                }
            case "--delays":
                o.delays = try list(arg)
                guard o.delays.allSatisfy({ $0 <= 100 }) else { throw BenchError("--delays: at most 100 ms, got \(o.delays)") }
            case "--only":
                let text = try value(arg)
                o.suites = Set(text.split(separator: ",").map(String.init))
                let known = Self.knownSuites
                guard o.suites.isSubset(of: known), !o.suites.isEmpty else {
                    throw BenchError("--only: \"\(text)\" is not a list of \(known.sorted())")
                }
            case "--rtu-words":
                o.rtuWords = try count(arg, 4...20000)
                guard o.rtuWords % 4 == 0 else { throw BenchError("--rtu-words: a multiple of 4, got \(o.rtuWords)") }
            case "--rtu-reps": o.rtuReps = try count(arg, 1...100)
            case "--relay-script": o.relayScript = try value(arg)
            case "--keep-temp": o.keepTemp = true
            case "--poll-devices": o.pollDevices = try count(arg, 1...100_000)
            case "--poll-simulators": o.pollSimulators = try count(arg, 1...200)
            case "--poll-words":
                o.pollWords = try count(arg, 4...125)
                guard o.pollWords % 4 == 0 else { throw BenchError("--poll-words: a multiple of 4, got \(o.pollWords)") }
            case "--poll-seconds": o.pollSeconds = try count(arg, 1...3600)
            case "--poll-warmup": o.pollWarmupSeconds = try count(arg, 1...600)
            case "--backup-interval": o.backupIntervalSeconds = try count(arg, 1...3600)
            case "--impls":
                let text = try value(arg)
                let names = text.split(separator: ",").map(String.init)
                guard !names.isEmpty, Set(names).isSubset(of: Bench.implementations) else {
                    throw BenchError("--impls: \"\(text)\" is not a list of \(Bench.implementations)")
                }
                o.impls = names
            case "-h", "--help":
                print(usage)
                exit(0)
            default: throw BenchError("unknown argument \"\(arg)\"")
            }
        }
        if o.relayScript.isEmpty && !o.pythonScript.isEmpty {
            o.relayScript =
                URL(fileURLWithPath: o.pythonScript).deletingLastPathComponent().appendingPathComponent("baud_relay.py").path
        }
        for (flag, path) in [("--python", o.python), ("--relay-script", o.relayScript)] where o.suites.contains("rtu") {
            guard !path.isEmpty, FileManager.default.fileExists(atPath: path) else {
                throw BenchError("\(flag): \"\(path)\" does not exist (the rtu suite needs it)")
            }
        }
        for (flag, path) in [("--c-worker", o.cWorker), ("--python", o.python), ("--py-script", o.pythonScript)]
        where o.suites.contains("wire") {
            guard !path.isEmpty, FileManager.default.fileExists(atPath: path) else {
                throw BenchError("\(flag): \"\(path)\" does not exist")
            }
        }
        for tool in ["lastsetd", "lastset-sim"] where !FileManager.default.isExecutableFile(atPath: "\(o.binDirectory)/\(tool)") {
            throw BenchError("--bin: no executable \(tool) in \"\(o.binDirectory)\"")
        }
        return o
    }

    /// Repetitions for a wire comparison at this delay and size.
    func repetitions(delayMs: Int, words: Int, perRegister: Bool) -> Int {
        if delayMs == 0 { return reps }
        if perRegister { return words >= 10000 ? perRegisterSlowReps10k : perRegisterSlowReps }
        return words >= 10000 ? slowReps10k : slowReps
    }
}
