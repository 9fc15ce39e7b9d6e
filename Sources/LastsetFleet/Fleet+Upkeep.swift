import Foundation
import LastsetCore
import LastsetFormats

/// What packing the repository did (`Fleet.upkeep`), for the log.
public struct FleetUpkeepReport: Sendable, Hashable, CustomStringConvertible {
    /// A repack of the loose objects, or a gc of the whole repository (`FleetUpkeep.Decision`).
    public var decision: FleetUpkeep.Decision
    /// The objects before and after (after: nil when git failed).
    public var before: FleetUpkeep.Objects
    public var after: FleetUpkeep.Objects?
    public var seconds: Double
    /// Why it failed, when it did (tried again at an idle sync a day later, or at once past a bound).
    public var failure: String?

    public var description: String {
        func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
        let what: String =
            switch decision {
            case .gc(let why): "packed the whole repository (\(why.rawValue))"
            case .repack(let why): "packed the repository's loose objects (\(why.rawValue))"
            case .wait(let why): "left the repository (\(why.rawValue))"
            }
        let took = String(format: "%.1f s", seconds)
        guard let after else { return "fleet: \(what) failed after \(took): \(failure ?? "")" }
        return
            "fleet: \(what): \(before.loose) loose objects (\(mb(before.looseBytes))) and \(before.packs) pack(s) of \(mb(before.packBytes)) → \(after.loose) loose, \(after.packs) pack(s) of \(mb(after.packBytes)) in \(took)"
    }
}

/// Bounding the repository's growth (docs/FLEET.md, "Growing the fleet"): git's automatic gc is off in the repository
/// (`configure`), and after a scheduled sync that found the fleet idle the daemon packs it by `FleetUpkeep.decide`.
extension Fleet {
    /// When the repository was last packed (or packing last tried): `.git/lastset-packed`.
    private var packedMarker: URL { tree.appendingPathComponent(".git/lastset-packed") }

    /// The repository's objects (`git count-objects -v`).
    public func objects() throws(GitError) -> FleetUpkeep.Objects {
        let text = try git.run(["count-objects", "-v"], timeout: settings.localTimeout).text
        guard let objects = FleetUpkeep.Objects(countObjects: text) else {
            throw .failed(arguments: ["count-objects"], status: 0, message: "unexpected output: \(text)")
        }
        return objects
    }

    /// After `report`'s sync: packs the repository when `FleetUpkeep.decide` says so, each git call bounded by
    /// `settings.packTimeout`; nil when nothing ran. Under `settings.legacyGrowth` (the bench's "before") never: git's
    /// own automatic gc is on instead.
    public func upkeep(after report: SyncReport, now: Date = Date()) -> FleetUpkeepReport? {
        guard !settings.legacyGrowth, let before = try? objects() else { return nil }
        let last = (try? String(contentsOf: packedMarker, encoding: .utf8)).flatMap {
            TimeText.parseISO8601($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let decision = FleetUpkeep.decide(before, idle: FleetUpkeep.isIdle(report), lastPacked: last, now: now)
        let calls: [[String]]
        switch decision {
        case .wait: return nil
        case .repack: calls = [["repack", "-d", "-l", "-q"], ["pack-refs", "--all"]]
        case .gc: calls = [["gc", "--quiet"]]
        }
        // Marked first: a packing that fails or is stopped is tried again a day later, not after every sync.
        try? Data((TimeText.iso8601(now) + "\n").utf8).write(to: packedMarker, options: .atomic)
        // Busy meanwhile, as during a sync: the fetch before a replay does not wait for it.
        state.withLock { $0.busy = true }
        defer { state.withLock { $0.busy = false } }
        let clock = ContinuousClock()
        let start = clock.now
        var out = FleetUpkeepReport(decision: decision, before: before, after: nil, seconds: 0, failure: nil)
        do {
            for call in calls { try git.run(call, timeout: settings.packTimeout) }
            out.after = try objects()
        } catch {
            out.failure = error.description
        }
        let elapsed = clock.now - start
        out.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return out
    }
}
