import Foundation

/// One complete HTTP request as handed to the application handler.
public struct HTTPRequest: Sendable {
    /// The method as sent, e.g. "GET".
    public var method: String
    /// The URL path without the query, percent-decoded by libmicrohttpd, e.g. "/v1/pages".
    public var path: String
    /// Query arguments, decoded; a key given without `=value` maps to "". Repeated keys keep the last value.
    public var query: [String: String]
    /// The request headers; look them up case-insensitively with `headers["content-type"]`.
    public var headers: HTTPHeaders
    /// The request body (at most the server's `maxBodyBytes`).
    public var body: [UInt8]
    /// The connected peer.
    public var peer: HTTPPeer

    /// Creates a request; the server does this, tests and routers may too.
    public init(
        method: String, path: String, query: [String: String] = [:], headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [], peer: HTTPPeer
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.peer = peer
    }
}
