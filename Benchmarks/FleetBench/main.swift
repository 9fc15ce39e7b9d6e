// `make bench-fleet`: what a fleet costs. Not a test: it prints figures (docs/BENCHMARKS.md). This is the first part;
// `lastset-fleet-bench growth` the second (GrowthBench.swift).
//
// 1. Per capture: archiving a 30-register template alone, and archiving it plus the git commit the
//    fleet adds (`Fleet.record`: copy into the repository, git add, git commit).
// 2. A sync of 200 pages × 20 versions between two hosts through a bare file:// hub: host A archives
//    and commits all 4,000 versions (one commit each, as captures would), pushes; host B fetches,
//    checks every commit and template, merges and archives all 4,000. Then a sync with nothing new and
//    one after a single new capture.
import Foundation
import LastsetCore
import LastsetEngine
import LastsetFleet

// `lastset-fleet-bench growth`: the second part (GrowthBench.swift).
if CommandLine.arguments.dropFirst().first == "growth" {
    try await GrowthBench.run()
    exit(0)
}

let pages = Int(ProcessInfo.processInfo.environment["FLEET_BENCH_PAGES"] ?? "200") ?? 200
let versions = Int(ProcessInfo.processInfo.environment["FLEET_BENCH_VERSIONS"] ?? "20") ?? 20
let registers = 30

func say(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }

func template(page: String, value: Int) -> Template {
    Template(
        pageId: page, pageHash: "sha256:bench", version: 0, capturedAt: Date(), capturedBy: "uid:1000",
        source: TemplateSource(deviceId: "press-1", endpoint: "tcp://127.0.0.1:15020", unit: 1, identity: []),
        entries: (0..<registers).map {
            let v = UInt16(truncatingIfNeeded: value &* 31 &+ $0)
            return TemplateEntry(
                registerId: "\(page).r\($0)", address: 100 + $0, length: 1, valueData: [v].bigEndianBytes.hexString,
                value: .unsigned(UInt64(v)), lastDate: Date())
        }, skipped: [])
}

func shell(_ args: [String], in dir: URL) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/git")
    p.arguments = args
    p.currentDirectoryURL = dir
    var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GIT_") }
    env["GIT_CONFIG_GLOBAL"] = "/dev/null"
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    p.environment = env
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw NSError(domain: "git \(args)", code: Int(p.terminationStatus)) }
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

struct Host {
    let archive: TemplateArchive
    let fleet: Fleet
    init(_ name: String, dir: URL, hub: String) async throws {
        let data = dir.appendingPathComponent(name)
        let database = try RecordStore.open(dataDirectory: data)
        archive = try TemplateArchive(database: database, historyLimit: versions, host: name)
        let audit = AuditLog(database: database)
        fleet = Fleet(
            settings: FleetSettings(FleetConfig(remote: hub, interval: "0s", host: name)), dataDirectory: data,
            archive: archive, audit: audit)
        try await fleet.open()
    }
}

let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lastset-fleet-bench-\(getpid())")
try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: dir) }
let hubPath = dir.appendingPathComponent("hub.git")
try shell(["init", "-q", "--bare", "-b", "main", hubPath.path], in: dir)
let hub = "file://" + hubPath.path
let clock = ContinuousClock()

// 1. Per capture.
let plain = try TemplateArchive(
    database: RecordStore.open(dataDirectory: dir.appendingPathComponent("plain")), historyLimit: versions)
var storeOnly: [Double] = []
for i in 0..<200 {
    let t = template(page: "p\(i % 10)", value: i)
    let start = clock.now
    _ = try await plain.store(t)
    storeOnly.append(seconds(clock.now - start) * 1000)
}
let a = try await Host("line-a", dir: dir, hub: hub)
var withCommit: [Double] = []
var commitOnly: [Double] = []
say("host A: archiving and committing \(pages) pages × \(versions) versions…")
let fillStart = clock.now
for v in 0..<versions {
    for p in 0..<pages {
        let t = template(page: "page\(p)", value: v * 1000 + p)
        let start = clock.now
        let stored = try await a.archive.store(t)
        let mid = clock.now
        if let warning = await a.fleet.record(stored, kind: .capture, who: "uid:1000") { say(warning) }
        let end = clock.now
        withCommit.append(seconds(end - start) * 1000)
        commitOnly.append(seconds(end - mid) * 1000)
    }
}
let fill = seconds(clock.now - fillStart)

// 2. Sync between two hosts.
var start = clock.now
let push = await a.fleet.sync()
let pushTime = seconds(clock.now - start)
guard push.result == .ok else { fatalError("push: \(push.result) \(push.message ?? "")") }
let b = try await Host("line-b", dir: dir, hub: hub)
start = clock.now
let pull = await b.fleet.sync()
let pullTime = seconds(clock.now - start)
guard pull.result == .ok, pull.templatesIn.count == pages * versions else {
    fatalError("pull: \(pull.result) \(pull.templatesIn.count) \(pull.message ?? "") \(pull.refused.prefix(3))")
}
var listed = 0
for p in 0..<pages { listed += try await b.archive.list(pageId: "page\(p)").count }
start = clock.now
let idle = await b.fleet.sync()
let idleTime = seconds(clock.now - start)
let one = try await a.archive.store(template(page: "page0", value: 999_999))
_ = await a.fleet.record(one, kind: .capture, who: "uid:1000")
_ = await a.fleet.sync()
start = clock.now
let single = await b.fleet.sync()
let singleTime = seconds(clock.now - start)
start = clock.now
let refresh = await b.fleet.refreshBeforeReplay()
let refreshTime = seconds(clock.now - start)

/// Disk use in bytes, as `du -sk` counts it.
func du(_ url: URL) -> Int {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/du")
    p.arguments = ["-sk", url.path]
    let out = Pipe()
    p.standardOutput = out
    guard (try? p.run()) != nil else { return 0 }
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return (Int(text.split(separator: "\t").first ?? "") ?? 0) * 1024
}

print("| fleet figure | value |")
print("|---|---|")
print(String(format: "| archive one template (%d registers), no fleet: median | %.2f ms |", registers, median(storeOnly)))
print(String(format: "| archive + fleet commit, per capture: median (of %d) | %.2f ms |", withCommit.count, median(withCommit)))
print(
    String(
        format: "| of which the commit (copy, git add, git commit): median / first 200 / last 200 | %.2f / %.2f / %.2f ms |",
        median(commitOnly), median(Array(commitOnly.prefix(200))), median(Array(commitOnly.suffix(200)))))
print(String(format: "| host A: %d captures archived and committed | %.1f s |", pages * versions, fill))
print(
    String(
        format: "| host A: first push of %d commits (%d versions) | %.2f s |", push.commitsOut, push.templatesOut.count, pushTime)
)
print(
    String(
        format: "| host B: first sync, %d commits in, %d versions checked, merged and archived | %.2f s |", pull.commitsIn,
        pull.templatesIn.count, pullTime))
print(String(format: "| host B: sync with nothing new | %.3f s |", idleTime))
print(String(format: "| host B: sync after one new capture on A (%d in) | %.3f s |", single.templatesIn.count, singleTime))
print(String(format: "| host B: fetch before a replay, nothing new | %.3f s%@ |", refreshTime, refresh.map { " (\($0))" } ?? ""))
print(
    String(
        format: "| hub size / host B repository / host B archive | %.1f / %.1f / %.1f MB |", Double(du(hubPath)) / 1e6,
        Double(du(dir.appendingPathComponent("line-b/fleet"))) / 1e6,
        Double(du(dir.appendingPathComponent("line-b/lastset.db")) + du(dir.appendingPathComponent("line-b/lastset.db-wal")))
            / 1e6))
print("| versions listed on B (of \(pages * versions)) | \(listed) |")
_ = idle
