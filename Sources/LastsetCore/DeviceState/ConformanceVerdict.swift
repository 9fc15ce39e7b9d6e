import Foundation

/// The verdict of one comparison of live values with the applied template's values.
public enum ConformanceVerdict: Sendable, Hashable {
    case conforms
    case drifted([DriftedRegister])
    /// Why it cannot tell.
    case unknown(String)
}
