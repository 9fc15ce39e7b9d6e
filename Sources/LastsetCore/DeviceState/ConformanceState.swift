import Foundation

/// Whether a device page still holds the template last applied to it.
public enum ConformanceState: String, Codable, Sendable, Hashable, CaseIterable {
    /// Every register written by the applied template reads back its value.
    case conforms
    /// Some register now holds another value (see `drifted`).
    case drifted
    /// Cannot tell: never applied, not polled, unreachable, registers not read, or partially written.
    case unknown
}
