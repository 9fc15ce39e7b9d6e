/// What one verification window of a replay found, the input of `AfterWindow.decide`: its first register read back
/// different, its first register whose read-back failed (indices into the plan's entries), whether the journal
/// refused a write's intent or shutdown stopped it, and the write that failed.
public struct WindowFindings: Sendable, Hashable {
    /// A write of the window that failed.
    public struct FailedWrite: Sendable, Hashable {
        /// Its index in the plan's writes.
        public var write: Int
        /// What its exception answer means (`WriteRefusal.decide`); nil when it got none (unanswered, not sent).
        public var refusal: WriteRefusal?
        /// A failed write from its parts.
        public init(write: Int, refusal: WriteRefusal?) {
            self.write = write
            self.refusal = refusal
        }
    }

    /// The first register checked in the window whose acknowledged write read back different.
    public var mismatch: Int?
    /// The first register checked in the window whose read-back failed.
    public var unreadable: Int?
    /// The journal could not record a write's intent: that write was not sent.
    public var journalFailed: Bool
    /// Shutdown stopped the window between two writes.
    public var cancelled: Bool
    /// The write that failed (the window's last sent).
    public var failedWrite: FailedWrite?

    /// Findings from their parts; a window that found nothing by default.
    public init(
        mismatch: Int? = nil, unreadable: Int? = nil, journalFailed: Bool = false, cancelled: Bool = false,
        failedWrite: FailedWrite? = nil
    ) {
        self.mismatch = mismatch
        self.unreadable = unreadable
        self.journalFailed = journalFailed
        self.cancelled = cancelled
        self.failedWrite = failedWrite
    }
}
