import Foundation
import LastsetFormats

/// How a replay's rollback ended, in the audit record.
public enum AuditRollbackResult: String, JSONFieldValue, Sendable, Hashable {
    /// Every touched register was restored and read back equal.
    case restored
    /// Some register could not be restored or did not read back equal.
    case incomplete
}
