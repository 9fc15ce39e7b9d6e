import Foundation

/// A replay or dry run as it ended, as far as its device page's recorded state is concerned: the facts
/// `ReplayPageEffect.of` decides from. Taken from the job's audit record — the one just appended, or one read
/// back when the state is rebuilt from the log — so a replay as it ends and the rebuild decide alike.
public struct ReplayOutcome: Sendable, Hashable {
    /// A dry run (planned only) rather than a replay.
    public var dryRun: Bool
    /// How it ended: `succeeded`, `failed`, `refused`, `planned`, or `interrupted` (the daemon stopped).
    public var result: AuditResult
    /// Registers a write frame of the replay may have changed: some of their words acknowledged, or a frame
    /// sent without an answer. A frame refused with an exception changed nothing.
    public var registersChanged: Int
    /// Dry run: the current value of every entry was read (a dry run that could not read some registers says
    /// nothing about them).
    public var readEveryEntry: Bool
    /// How its rollback ended (nil: none ran).
    public var rollback: AuditRollbackResult?

    /// Sets every field.
    public init(
        dryRun: Bool, result: AuditResult, registersChanged: Int = 0, readEveryEntry: Bool = false,
        rollback: AuditRollbackResult? = nil
    ) {
        self.dryRun = dryRun
        self.result = result
        self.registersChanged = registersChanged
        self.readEveryEntry = readEveryEntry
        self.rollback = rollback
    }

    /// Statuses of a register a frame may have changed, for a record written before `registersChanged` was
    /// (a register rejected after some of its words were acknowledged is missed there).
    static let changedStatuses: Set<AuditRegisterStatus> = [
        .replay(.verified), .replay(.mismatch), .replay(.inDoubt), .replay(.unverified), .replay(.changedLater),
    ]

    /// The outcome an audit record gives; nil for a record that is not a replay's or a dry run's end (an
    /// intent, a capture, an import…).
    public init?(record r: AuditRecord) {
        switch (r.kind, r.result) {
        case (.replay, .succeeded), (.replay, .failed), (.replay, .refused), (.replay, .interrupted):
            self.init(
                dryRun: false, result: r.result,
                registersChanged: r.registersChanged
                    ?? r.registers.filter { Self.changedStatuses.contains($0.status) }.count,
                rollback: r.rollback)
        case (.dryRun, .planned), (.dryRun, .refused), (.dryRun, .failed):
            self.init(
                dryRun: true, result: r.result,
                readEveryEntry: r.registers.allSatisfy { $0.status == .replay(.unchanged) || $0.status == .replay(.differs) })
        default:
            return nil
        }
    }
}

/// What a finished replay or dry run does to its device page's recorded state (`DevicePageState`: the version
/// it holds, and the "may be partially written" mark). The one decision, made by `Engine.apply` as a job ends,
/// by the start-up recovery for a job whose outcome is logged, and by the rebuild from the audit log.
public enum ReplayPageEffect: Sendable, Hashable, CaseIterable {
    /// Nothing changes: the page holds what it held (a refusal, a failed replay that changed no register, a
    /// rollback that restored every register changed, a dry run that did not read every entry).
    case keep
    /// A success: the page holds the replayed version; any mark is cleared.
    case applied
    /// A dry run that read every entry shows what the page holds: the mark is cleared, the version recorded
    /// stays (none after a failed replay).
    case clearsMark
    /// The daemon stopped while writing: marked `interrupted`; the version recorded stays beside the mark.
    case interrupted
    /// A failed replay changed registers (acknowledged or in doubt) and no rollback restored them all: the page
    /// holds no version, and is marked `failed` (partially written).
    case partiallyWritten

    /// The effect of `outcome`.
    public static func of(_ outcome: ReplayOutcome) -> ReplayPageEffect {
        if outcome.dryRun {
            return outcome.result == .planned && outcome.readEveryEntry ? .clearsMark : .keep
        }
        switch outcome.result {
        case .succeeded: return .applied
        case .interrupted: return .interrupted
        default:
            guard outcome.registersChanged > 0, outcome.rollback != .restored else { return .keep }
            return .partiallyWritten
        }
    }

    /// The mark's reason this effect sets (nil: sets none).
    public var mark: UnverifiedMark.Reason? {
        switch self {
        case .interrupted: return .interrupted
        case .partiallyWritten: return .failed
        case .keep, .applied, .clearsMark: return nil
        }
    }
}
