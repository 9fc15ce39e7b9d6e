import Foundation

/// A complete HTTP response received by `HTTPClient`.
public struct HTTPClientResponse: Sendable, Equatable {
    /// The status code, e.g. 200.
    public let status: Int
    /// Header fields keyed by lower-cased name (repeated fields joined with ", ").
    public let headers: [String: String]
    /// The body, de-chunked.
    public let body: [UInt8]

    /// Creates a response from its parts.
    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of header `name` in any case, or nil.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// Decodes the body as JSON.
    public func decodeJSON<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: Data(body))
    }

    /// The body as UTF-8 text (invalid bytes replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }
}
