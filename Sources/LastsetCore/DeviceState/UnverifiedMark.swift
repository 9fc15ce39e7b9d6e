import Foundation
import LastsetFormats

/// A device page that may hold a partial template: a replay to it was interrupted (the daemon was killed or
/// crashed while writing), or failed after changing registers. It stays until a replay that succeeds or a
/// diff clears it (`ReplayPageEffect`); the daemon never resumes the replay by itself.
public struct UnverifiedMark: Sendable, Hashable {
    /// Why the page may be partially written.
    public enum Reason: String, JSONFieldValue, Sendable, Hashable, CaseIterable {
        /// The daemon stopped while the replay was writing (its journal, found at the next start); the
        /// version recorded before stays beside the mark.
        case interrupted
        /// The replay ended failed after a frame that may have changed registers (acknowledged or in doubt)
        /// and no rollback restored them: the page holds no version.
        case failed
    }

    /// The device label (configured id, or endpoint and unit).
    public var device: String
    public var pageId: String
    /// When the replay that left the mark started (interrupted) or ended (failed).
    public var since: Date
    /// The replay's job.
    public var job: String
    /// Interrupted or failed (a mark written before reasons were recorded is an interrupted one).
    public var reason: Reason
    /// "interrupted: may be partially written …", "failed: partially written …".
    public var message: String

    /// Sets every field.
    public init(device: String, pageId: String, since: Date, job: String, reason: Reason = .interrupted, message: String) {
        self.device = device
        self.pageId = pageId
        self.since = since
        self.job = job
        self.reason = reason
        self.message = message
    }

    /// The mark a failed replay that changed registers leaves (`ReplayPageEffect.partiallyWritten`), made from
    /// its outcome record: the same mark whether set as the replay ends or rebuilt from the audit log.
    public static func failedReplay(_ r: AuditRecord) -> UnverifiedMark {
        let changed = r.registersChanged.map { "\($0) of \(r.registers.count) registers changed" }
        let frames = r.writeFrames.map { "\($0) write frame\($0 == 1 ? "" : "s")" }
        let facts = [frames, changed, r.message].compactMap { $0 }.joined(separator: "; ")
        return UnverifiedMark(
            device: r.device, pageId: r.pageId, since: r.time, job: r.job ?? "", reason: .failed,
            message: "failed: partially written"
                + ((r.templateVersionId ?? r.templateVersion.map(String.init)).map { " by version \($0)" } ?? "")
                + ", holds no version"
                + (facts.isEmpty ? "" : " (\(facts))")
                + "; replay or diff the device to clear")
    }

    /// The mark as conformance and polling give it: "unverified since …: …" or "partially written since …: …".
    public var summary: String {
        let state = reason == .failed ? "partially written" : "unverified"
        return "\(state) since \(TimeText.iso8601(since)): \(message)"
    }
}

extension UnverifiedMark: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = UnverifiedMark(device: "", pageId: "", since: .distantPast, job: "", message: "")

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("device", &r.device)
        try f.field("job", &r.job)
        try f.field("message", &r.message)
        try f.field("pageId", &r.pageId)
        // A mark written before reasons were recorded is an interrupted one.
        try f.field("reason", &r.reason, absent: .interrupted)
        try f.field("since", &r.since)
    }
}
