/// What a replay does after a verification window (issue 21): the next window, a re-plan after a write the device
/// refused for a reason a re-plan answers, passing over a failed write, or a stop — one pure decision over the
/// window's findings and the recovery policy, table-tested in `AfterWindowTests`. What an exception answer means
/// is `WriteRefusal.decide`'s; whether a failure stops the writes is `RecoveryPolicy.stopsAtFailure`'s.
///
/// The order is the replay's promise: a mismatch or an unreadable read-back stops it (unless `onError: continue`)
/// before anything beyond the window is written; a journal that cannot be written stops it whatever the policy (no
/// frame without its record); shutdown stops it at this clean point; then the failed write, if any.
public enum AfterWindow: Sendable, Hashable {
    /// Why the writes stop.
    public enum Stop: Sendable, Hashable {
        /// A register of the window (an index into the plan's entries) read back different.
        case mismatch(entry: Int)
        /// A register's read-back failed.
        case unreadable(entry: Int)
        /// The journal could not be written: nothing further is sent.
        case journalBroken
        /// Shutdown, at a clean point between two writes.
        case shutdown
        /// A write (an index into the plan's writes) failed: refused with an exception a re-plan does not answer,
        /// unanswered, or not sent.
        case failedWrite(write: Int)
    }

    /// On with the next window.
    case nextWindow
    /// `onError: continue`: pass over the failed write, on with the windows of the writes after it.
    case skipFailedWrite(write: Int)
    /// The device refused the write for a reason a re-plan answers (`fallBackToFC06`, `shorten`): the writes
    /// from it on again (`ReplayPlan.replan(at:after:)`).
    case replan(write: Int, WriteRefusal)
    /// No write after this window.
    case stop(Stop)

    /// The decision after a window that found `findings`, under `policy`.
    public static func decide(_ findings: WindowFindings, policy: RecoveryPolicy) -> AfterWindow {
        if policy.stopsAtFailure {
            if let m = findings.mismatch { return .stop(.mismatch(entry: m)) }
            if let u = findings.unreadable { return .stop(.unreadable(entry: u)) }
        }
        if findings.journalFailed { return .stop(.journalBroken) }
        if findings.cancelled { return .stop(.shutdown) }
        guard let failed = findings.failedWrite else { return .nextWindow }
        if let refusal = failed.refusal, refusal != .rejected { return .replan(write: failed.write, refusal) }
        return policy.stopsAtFailure ? .stop(.failedWrite(write: failed.write)) : .skipFailedWrite(write: failed.write)
    }
}
