import Foundation
import LastsetCore
import LastsetEngine
import LastsetFleet

extension GrowthBench {
    /// The measured host, line-00, under one growth behaviour, against its own copy of the hub.
    final class Variant {
        let name: String
        let legacy: Bool
        let data: URL
        let archive: TemplateArchive
        let audit: AuditLog
        let fleet: Fleet
        let clock = ContinuousClock()
        /// The second year's upkeep: what ran, and how long it took.
        var upkeeps: [FleetUpkeepReport] = []
        var value = 0

        /// The data directory with its versions and a year of audit records, and the fleet opened (which commits the
        /// versions: part of joining, timed with the first sync).
        init(legacy: Bool, dir: URL, hub: URL) async throws {
            name = legacy ? "before" : "after"
            self.legacy = legacy
            let hubCopy = dir.appendingPathComponent("hub-\(name).git")
            try shell(["clone", "-q", "--bare", "--no-local", hub.path, hubCopy.path], in: dir)
            data = dir.appendingPathComponent(name)
            let database = try RecordStore.open(dataDirectory: data)
            archive = try TemplateArchive(database: database, historyLimit: versions, host: host(0))
            audit = AuditLog(database: database)
            var settings = FleetSettings(FleetConfig(remote: "file://" + hubCopy.path, interval: "0s", host: host(0)))
            settings.legacyGrowth = legacy
            fleet = Fleet(settings: settings, dataDirectory: data, archive: archive, audit: audit)
            say("\(name): archiving \(pages) × \(versions) versions and \(365 * recordsPerDay) audit records…")
            for v in 1...versions {
                for p in 0..<pages { _ = try await archive.store(template(page: p, number: v, host: nil, at: Date())) }
            }
            for d in 0..<365 {
                for n in 0..<recordsPerDay { try await audit.append(auditRecord(day: d, n: n)) }
            }
        }

        func firstSync() async throws {
            let start = clock.now
            try await fleet.open()
            let report = await fleet.sync()
            let took = seconds(clock.now - start)
            guard report.result == .ok else { fatalError("\(name): first sync: \(report.result) \(report.message ?? "")") }
            print(
                String(
                    format: "| %@: first sync (open: commit its %d versions; export %d audit records; fetch, check, merge and archive %d versions) | %.1f s |",
                    name, pages * versions, report.auditRecordsOut, report.templatesIn.count, took))
        }

        func emptySync() async throws -> Double {
            let start = clock.now
            let report = await fleet.sync()
            guard report.result == .ok else { fatalError("\(name): sync: \(report.result) \(report.message ?? "")") }
            return seconds(clock.now - start)
        }

        func captureAndSync() async throws -> Double {
            value += 1
            let stored = try await archive.store(template(page: value % pages, number: 1000 + value, host: nil, at: Date()))
            let start = clock.now
            if let warning = await fleet.record(stored, kind: .capture, who: "uid:1000") { say(warning) }
            let report = await fleet.sync()
            guard report.result == .ok, report.templatesOut.count == 1 else {
                fatalError("\(name): capture's sync: \(report.result) \(report.templatesOut) \(report.message ?? "")")
            }
            return seconds(clock.now - start)
        }

        /// A week of the second year: its audit records and a capture, a sync, an idle sync, and the upkeep the
        /// schedule runs after each sync (as on that week's last day).
        func step(week: Int) async throws {
            let yearTwo = yearStart.addingTimeInterval(365 * day)
            for d in (week * 7)..<(week * 7 + 7) {
                for n in 0..<recordsPerDay { try await audit.append(auditRecord(day: d, n: n, start: yearTwo)) }
            }
            _ = try await captureAndSync()
            let now = yearTwo.addingTimeInterval(Double(week * 7 + 6) * day)
            let idle = await fleet.sync()
            if let packed = await fleet.upkeep(after: idle, now: now) {
                if let failure = packed.failure { say("\(name): \(failure)") }
                upkeeps.append(packed)
            }
        }

        func printUpkeep() {
            let repacks = upkeeps.filter { if case .repack = $0.decision { true } else { false } }
            let gcs = upkeeps.filter { if case .gc = $0.decision { true } else { false } }
            func sum(_ r: [FleetUpkeepReport]) -> Double { r.map(\.seconds).reduce(0, +) }
            print(
                String(
                    format: "| %@: the second year's packing: %d repacks (%.1f s in all, at most %.1f s), %d gc (%.1f s in all, at most %.1f s) |",
                    name, repacks.count, sum(repacks), repacks.map(\.seconds).max() ?? 0, gcs.count, sum(gcs),
                    gcs.map(\.seconds).max() ?? 0))
        }

        func diskMB() -> String { String(format: "%.1f", Double(du(data.appendingPathComponent("fleet"))) / 1e6) }
        func gitMB() -> String { String(format: "%.1f", Double(du(data.appendingPathComponent("fleet/.git"))) / 1e6) }

        func auditFileMB() -> String {
            let file = data.appendingPathComponent("fleet/audit/\(host(0)).jsonl")
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            return String(format: "%.1f", Double(size) / 1e6)
        }

        func objectsText() async -> String {
            guard let o = try? await fleet.objects() else { return "?" }
            return String(format: "%d (%.1f MB) / %d (%.1f MB)", o.loose, Double(o.looseBytes) / 1e6, o.packs, Double(o.packBytes) / 1e6)
        }
    }
}
