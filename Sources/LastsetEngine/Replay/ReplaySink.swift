import LastsetCore

/// Where a replay journals its transitions: `begin` makes the intent durable (audit intent record and
/// the journal's intent, one commit) before the first write frame and throws when it cannot — then nothing is
/// written; `record` journals one transition and returns false when it (or one before it) could not be journaled.
public struct ReplaySink: Sendable {
    /// Makes the intent durable; throws when it cannot (the replay is then refused).
    public var begin: @Sendable (ReplayIntent) async throws -> Void
    /// Journals one transition; false when it could not. The flag says it must be recorded before a frame goes
    /// out: the call then returns once it is (it may block: made on a device connection's queue, inside its batch);
    /// other transitions may be queued.
    public var record: @Sendable (ReplayEvent, _ beforeFrame: Bool) -> Bool

    /// A sink from its two functions.
    public init(
        begin: @escaping @Sendable (ReplayIntent) async throws -> Void,
        record: @escaping @Sendable (ReplayEvent, _ beforeFrame: Bool) -> Bool
    ) {
        self.begin = begin
        self.record = record
    }
}
