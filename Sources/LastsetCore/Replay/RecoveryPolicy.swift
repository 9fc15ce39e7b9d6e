/// A replay's recovery policy, from its `onError` (issue 21): what a failure means for what comes next, in one
/// place, table-tested in `RecoveryPolicyTests`. `stop` writes nothing after the first permanent failure,
/// `continue` goes on with the remaining registers, `rollback` stops and restores the snapshot.
public struct RecoveryPolicy: Sendable, Hashable {
    /// How a replay ends once its writes are done or stopped.
    public enum Ending: Sendable, Hashable {
        /// Every register verified and journaled: run `afterWrite` (the commit).
        case commit
        /// Leave the target as the writes left it (`afterWrite` is not sent when a register did not verify).
        case leave
        /// Restore and verify the snapshot of every register a frame may have changed.
        case rollBack
    }

    /// The replay's setting.
    public var onError: OnError

    /// The policy of `onError`.
    public init(_ onError: OnError) {
        self.onError = onError
    }

    /// Whether a permanent failure in a window — a register read back different, a read-back that failed, a
    /// write refused, unanswered or not sent — stops the writes (under `stop` and `rollback`); under `continue`
    /// the replay goes on with the next write.
    public var stopsAtFailure: Bool { onError != .continue }

    /// Whether every register's value must be read before the first frame: only a rollback needs every value
    /// (without one an unreadable register just has no "before"); a dry run writes nothing.
    public func needsEveryValueBefore(dryRun: Bool) -> Bool { onError == .rollback && !dryRun }

    /// How the replay ends after its writes and the final pass: the commit when every register verified and every
    /// transition was journaled, else a rollback under `rollback` or the target left as it is.
    public func afterWrites(everyRegisterVerified: Bool, journalIntact: Bool) -> Ending {
        if everyRegisterVerified && journalIntact { return .commit }
        return onError == .rollback ? .rollBack : .leave
    }

    /// How the replay ends when `afterWrite` failed after every register verified: the new values are live and
    /// uncommitted; the rollback promise covers this too.
    public var afterFailedCommit: Ending { onError == .rollback ? .rollBack : .leave }
}
