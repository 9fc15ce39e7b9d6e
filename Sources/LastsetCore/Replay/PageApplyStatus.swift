import Foundation
import LastsetFormats

/// How one page of a whole-machine apply ended.
public enum PageApplyStatus: String, JSONFieldValue, Sendable, Hashable {
    /// Written and verified (afterWrite done).
    case succeeded
    /// Dry run: planned.
    case planned
    /// The replay failed (see its report).
    case failed
    /// Refused before its first write (identity differs, invalid template, …).
    case refused
    /// The page has no archived template (or it cannot be loaded): nothing written.
    case noTemplate
    /// A restore (`versions: "lastVerified"`) with no version verified on the device: nothing written, nothing
    /// to write (its `restore` says why); not a failure of the job.
    case nothingToRestore
    /// Not attempted: an earlier page did not succeed (stop policy), or the job was cancelled.
    case notAttempted
}
