/// What the steps a replay sent mean for the machine when the replay did not finish (issue 19, defect 13):
/// the one decision behind the interrupted record's warning, table-tested in `StepHazardTests`.
public enum StepHazard: Sendable, Hashable {
    /// No step may have run (or none exists).
    case none
    /// A `beforeWrite` step (the unlock) may have run and no `afterWrite` step did: the machine may be
    /// left unlocked.
    case mayBeUnlocked
    /// An `afterWrite` step (the commit) may have run, not every one is confirmed: the new values may be
    /// committed, or half so.
    case commitInDoubt
    /// Every `afterWrite` step acknowledged: the commit ran.
    case committed

    /// The hazard of `steps` (every step the intent listed or the journal named).
    public static func of(_ steps: [StepFate]) -> StepHazard {
        let after = steps.filter { $0.phase == .afterWrite }
        if !after.isEmpty && after.allSatisfy({ $0.status == .ok }) { return .committed }
        if after.contains(where: \.mayHaveRun) { return .commitInDoubt }
        if steps.contains(where: { $0.phase == .beforeWrite && $0.mayHaveRun }) { return .mayBeUnlocked }
        return .none
    }

    /// The warning a record carries, nil for `none`.
    public var warning: String? {
        switch self {
        case .none: return nil
        case .mayBeUnlocked: return "the machine may be left unlocked (beforeWrite sent, afterWrite not)"
        case .commitInDoubt: return "afterWrite sent without a confirmed answer: the new values may be committed"
        case .committed: return "afterWrite acknowledged: the new values were committed"
        }
    }
}
