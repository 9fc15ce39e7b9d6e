import Foundation

/// When a host packs its fleet repository. git never does it on its own there (`gc.auto 0`: inside a sync's bounded
/// calls an automatic gc could be stopped half way, and it would follow git's thresholds, not the fleet's); the
/// daemon does it after a scheduled sync that found the fleet idle, by this decision: once a day (or past a bound)
/// the loose objects into a pack of their own, cheap; when those packs reach a bound, all into one (`git gc`). Pure.
public enum FleetUpkeep {
    /// What `git count-objects -v` says of the repository.
    public struct Objects: Sendable, Hashable {
        /// Loose objects, and their size on disk in bytes.
        public var loose: Int
        public var looseBytes: Int
        /// Packs, and their size on disk in bytes.
        public var packs: Int
        public var packBytes: Int

        public init(loose: Int, looseBytes: Int, packs: Int, packBytes: Int) {
            self.loose = loose
            self.looseBytes = looseBytes
            self.packs = packs
            self.packBytes = packBytes
        }

        /// Parses `git count-objects -v` (`count`, `size` and `size-pack` in KiB, `packs`); nil when a field is missing.
        public init?(countObjects text: String) {
            var fields: [String: Int] = [:]
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2, let n = Int(parts[1]) { fields[parts[0]] = n }
            }
            guard let count = fields["count"], let size = fields["size"], let packs = fields["packs"],
                let sizePack = fields["size-pack"]
            else { return nil }
            self.init(loose: count, looseBytes: size * 1024, packs: packs, packBytes: sizePack * 1024)
        }
    }

    /// What to do now, and why (for the log).
    public enum Decision: Sendable, Hashable {
        /// Nothing.
        case wait(Reason)
        /// Loose objects into one new pack, refs into `packed-refs` (`git repack -d -l`, `git pack-refs --all`): in
        /// proportion to what is new.
        case repack(Reason)
        /// Every pack and loose object into one pack, deltas found anew, unreachable objects older than two weeks
        /// pruned (`git gc`): in proportion to the whole repository.
        case gc(Reason)
    }

    /// Why.
    public enum Reason: String, Sendable, Hashable {
        /// The last sync moved something (or failed): the fleet is not idle; packing waits for a quiet sync.
        case busy
        /// Nothing loose and fewer packs than the bound: nothing to do.
        case packed
        /// Loose objects past a bound: packed at the first idle sync.
        case loose
        /// Packs past the bound (one a day's repacking adds): consolidated at the first idle sync.
        case packs
        /// Packed at most once a day otherwise, when anything is loose.
        case daily
        /// Packed within the day, and under the bounds.
        case recent
    }

    /// Loose objects past which a repository is packed at the next idle sync (git's own default is 6,700).
    public static let looseBound = 2_000
    /// Loose bytes past which likewise (an audit file's every export is a whole new blob until packed).
    public static let looseBytesBound = 64 << 20
    /// Packs past which they are consolidated into one (each daily repack and each fetch of 100 objects or more
    /// adds one): about every two weeks of daily repacks.
    public static let packsBound = 16
    /// The least time between two daily repacks under the bounds.
    public static let interval: TimeInterval = 24 * 3600

    /// Decides for `objects`, after a sync that found the fleet `idle` (it ended ok and moved nothing in or out), when
    /// the repository was last packed (or packing last tried; nil: never).
    public static func decide(_ objects: Objects, idle: Bool, lastPacked: Date?, now: Date) -> Decision {
        guard idle else { return .wait(.busy) }
        if objects.packs >= packsBound { return .gc(.packs) }
        guard objects.loose > 0 else { return .wait(.packed) }
        if objects.loose >= looseBound || objects.looseBytes >= looseBytesBound { return .repack(.loose) }
        if let lastPacked, now.timeIntervalSince(lastPacked) < interval { return .wait(.recent) }
        return .repack(.daily)
    }

    /// Whether a sync found the fleet idle: it ended ok and nothing came in or went out.
    public static func isIdle(_ report: SyncReport) -> Bool {
        report.result == .ok && report.commitsIn == 0 && report.commitsOut == 0 && report.templatesIn.isEmpty
            && report.templatesOut.isEmpty && report.auditRecordsOut == 0 && report.auditRecordsIn == 0
    }
}
