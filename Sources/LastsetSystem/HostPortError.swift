/// Why a text is not `host:port`.
public struct HostPortError: Error, Hashable, CustomStringConvertible {
    /// What is missing.
    public enum Reason: Sendable, Hashable {
        /// No `:port` (or, after `[host]`, something else than `:`).
        case missingPort
        /// A `[` without its `]`.
        case unclosedBracket
    }

    /// The text as given.
    public let text: String
    /// What is missing.
    public let reason: Reason

    /// "missing ':port'" or "unclosed '[' in IPv6 host".
    public var description: String {
        switch reason {
        case .missingPort: return "missing ':port'"
        case .unclosedBracket: return "unclosed '[' in IPv6 host"
        }
    }
}
