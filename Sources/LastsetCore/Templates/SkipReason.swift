import Foundation
import LastsetFormats

/// Why a register is not in a template.
public enum SkipReason: String, JSONFieldValue, Sendable, Hashable {
    /// Still at its "not set" default.
    case unset
    /// `clone: false` (identity or communication register).
    case notCloned
    /// `access: ro`.
    case readOnly
}
