/// A refusal carried as an error: the response to send.
public struct HTTPError: Error, Sendable {
    /// The response (a JSON error) to send as is.
    public var response: HTTPResponse
    /// Wraps a response.
    public init(_ response: HTTPResponse) { self.response = response }
}
