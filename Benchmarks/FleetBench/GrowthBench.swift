// `lastset-fleet-bench growth` (`make bench-fleet`, second part): the fleet's growth over a year, before and after
// the growth policy (docs/FLEET.md, "Growing the fleet"), in one run with the real `git`.
//
// The hub holds what 19 other hosts made: 200 pages × 20 versions each and a year of their audit records (written
// with `git fast-import`, one commit per host and quarter). The measured host, line-00, has its own 200 × 20 versions
// and a year of audit records in its database. Twice, side by side — "before" (`FleetSettings.legacyGrowth`: git's
// own automatic gc, the audit export's whole file read and rewritten each time) and "after" (the policy: no automatic
// gc, packing after idle syncs by `FleetUpkeep`, the export's cursor read from the file's end and the records appended)
// — each against its own copy of the hub: the first sync, an empty sync, one new capture and its sync, disk size;
// then a second year in weekly steps (a week's audit records and a capture, a sync, an idle sync, the upkeep the
// schedule runs after it) and the same figures at its end.
import Foundation
import LastsetCore
import LastsetEngine
import LastsetFleet
import LastsetFormats

enum GrowthBench {
    static let hosts = environmentInt("FLEET_GROWTH_HOSTS", 20)
    static let pages = environmentInt("FLEET_GROWTH_PAGES", 200)
    static let versions = environmentInt("FLEET_GROWTH_VERSIONS", 20)
    static let recordsPerDay = environmentInt("FLEET_GROWTH_RECORDS_PER_DAY", 10)
    static let weeks = environmentInt("FLEET_GROWTH_WEEKS", 52)
    static let registers = 20
    /// 2025-01-01T00:00:00Z: the first year's start; the second year starts 365 days later.
    static let yearStart = Date(timeIntervalSince1970: 1_735_689_600)
    static let day: TimeInterval = 86_400

    static func host(_ i: Int) -> String { String(format: "line-%02d", i) }

    static func environmentInt(_ name: String, _ fallback: Int) -> Int {
        Int(ProcessInfo.processInfo.environment[name] ?? "") ?? fallback
    }

    static func entries(_ page: Int, _ value: Int, at: Date) -> [TemplateEntry] {
        (0..<registers).map {
            let v = UInt16(truncatingIfNeeded: value &* 31 &+ $0)
            return TemplateEntry(
                registerId: "page\(page).r\($0)", address: 100 + $0, length: 1, valueData: [v].bigEndianBytes.hexString,
                value: .unsigned(UInt64(v)), lastDate: at)
        }
    }

    static func template(page: Int, number: Int, host: String?, at: Date) -> Template {
        Template(
            pageId: "page\(page)", pageHash: "sha256:bench", version: number, capturedAt: at, capturedBy: "uid:1000",
            source: TemplateSource(deviceId: "press-1", endpoint: "tcp://127.0.0.1:15020", unit: 1, identity: []),
            entries: entries(page, number * 1000 + page, at: at), skipped: [], host: host, archivedAt: host == nil ? nil : at)
    }

    /// One audit record of a day: a replay of 10 registers, as a plant's host makes a handful of a day.
    static func auditRecord(day: Int, n: Int, start: Date = yearStart) -> AuditRecord {
        let at = start.addingTimeInterval(Double(day) * Self.day + Double(n) * 600)
        return AuditRecord(
            time: at, kind: .replay, who: "uid:1000(op)", pageId: "page\((day * 7 + n) % pages)", device: "press-\(n % 4)",
            endpoint: "tcp://10.0.0.\(n % 4 + 10):502", unit: 1, identity: [], templateVersion: 1 + n % versions,
            pageHash: "sha256:bench", result: .succeeded, message: "replayed version \(1 + n % versions)",
            registers: (0..<10).map {
                AuditRegister(
                    registerId: "page\(n).r\($0)", before: .unsigned(UInt64($0)), after: .unsigned(UInt64(day + $0)),
                    status: .replay(.verified))
            }, job: UUID().uuidString)
    }

    static func run() async throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lastset-growth-bench-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let clock = ContinuousClock()
        let start = clock.now
        say("hub: \(hosts - 1) hosts × \(pages) pages × \(versions) versions and a year of their audit records…")
        let hub = dir.appendingPathComponent("hub.git")
        try HubWriter(path: hub).write()
        say(String(format: "hub written in %.0f s (%.0f MB)", seconds(clock.now - start), Double(du(hub)) / 1e6))
        var variants: [Variant] = []
        // Which goes first in each phase (FLEET_GROWTH_ORDER=after-first turns it round: the machine's load drifts).
        let afterFirst = ProcessInfo.processInfo.environment["FLEET_GROWTH_ORDER"] == "after-first"
        for legacy in afterFirst ? [false, true] : [true, false] {
            let v = try await Variant(legacy: legacy, dir: dir, hub: hub)
            variants.append(v)
        }
        for v in variants { try await v.firstSync() }
        try await measure(variants, at: "after the first sync")
        say("a second year in \(weeks) weekly steps…")
        for week in 0..<weeks {
            for v in variants { try await v.step(week: week) }
            if week % 13 == 12 { say("week \(week + 1): \(variants.map { "\($0.name) \($0.diskMB()) MB" }.joined(separator: ", "))") }
        }
        try await measure(variants, at: "after the second year")
        for v in variants.sorted(by: { $0.legacy && !$1.legacy }) { v.printUpkeep() }
        say(String(format: "growth bench: %.0f s in all", seconds(clock.now - start)))
    }

    /// An empty sync (median of 5) and one new capture with its sync (median of 3), alternating between the variants;
    /// then disk sizes.
    static func measure(_ order: [Variant], at moment: String) async throws {
        var empty: [String: [Double]] = [:]
        var capture: [String: [Double]] = [:]
        for _ in 0..<5 { for v in order { empty[v.name, default: []].append(try await v.emptySync()) } }
        for _ in 0..<3 { for v in order { capture[v.name, default: []].append(try await v.captureAndSync()) } }
        let variants = order.sorted { $0.legacy && !$1.legacy }
        print("\n| \(moment) | " + variants.map(\.name).joined(separator: " | ") + " |")
        print("|---|" + variants.map { _ in "---|" }.joined())
        print("| sync with nothing new (median of 5) | " + variants.map { ms(median(empty[$0.name]!)) }.joined(separator: " | ") + " |")
        print(
            "| one new capture: commit and sync (median of 3) | "
                + variants.map { ms(median(capture[$0.name]!)) }.joined(separator: " | ") + " |")
        print("| repository on disk (`<data>/fleet`) | " + variants.map { "\($0.diskMB()) MB" }.joined(separator: " | ") + " |")
        print("| of which `.git` | " + variants.map { "\($0.gitMB()) MB" }.joined(separator: " | ") + " |")
        var objects: [String] = []
        for v in variants { objects.append(await v.objectsText()) }
        print("| loose objects / packs | " + objects.joined(separator: " | ") + " |")
        print("| exported audit file of line-00 | " + variants.map { "\($0.auditFileMB()) MB" }.joined(separator: " | ") + " |")
    }

    static func ms(_ s: Double) -> String { s >= 10 ? String(format: "%.1f s", s) : String(format: "%.0f ms", s * 1000) }
}
