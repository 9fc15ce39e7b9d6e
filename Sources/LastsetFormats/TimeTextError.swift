/// A time text that is not accepted, quoting it.
public struct TimeTextError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text as given.
    public var text: String
    /// Why it is refused.
    public var reason: String
    /// Creates the error.
    public init(text: String, reason: String) {
        self.text = text
        self.reason = reason
    }
    /// `time "…": <reason>`.
    public var description: String { "time \"\(text)\": \(reason)" }
}
