extension ReplayEvent {
    /// How soon a transition must reach the journal's database.
    public enum Journaling: Sendable, Hashable {
        /// Committed before the frame it announces goes out (a write's intent, a step's).
        case beforeFrame
        /// Queued for the next commit at once: a fact the interrupted record should not lose (a step answered: the
        /// machine may be unlocked), or the last of a phase (the final pass, a rollback's read-back).
        case prompt
        /// Kept back until the next transition that is not: lost with the daemon, it only leaves the interrupted
        /// record more cautious — a frame "sent, no answer", a register "acknowledged, not read back" — never
        /// claiming more than happened (the write intents that follow it are committed with it first).
        case mayWait
    }

    /// How soon this transition must reach the journal when it is not announcing a frame (the replay says so
    /// itself for those: `ReplaySink.record`'s `beforeFrame`).
    public var journaling: Journaling {
        switch kind {
        case .intent, .write: return .beforeFrame
        case .step, .finalCheck, .restoreCheck: return .prompt
        case .answer, .check, .replan, .restore, .end: return .mayWait
        }
    }
}
