/// An HTTP method a route of the control API answers.
public enum APIMethod: String, Sendable, Hashable, CaseIterable {
    /// Reads.
    case get = "GET"
    /// Creates, starts or changes.
    case post = "POST"
    /// Removes.
    case delete = "DELETE"
}
