import Foundation
import LastsetCore

/// A complete HTTP response produced by the application handler.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code, e.g. 200.
    public var status: Int
    /// Response headers; Content-Length is always set by the server and must not be given here.
    public var headers: HTTPHeaders
    /// The response body.
    public var body: [UInt8]
    /// A body sent from a file instead of `body` (which is then ignored), for bodies too large to hold in memory.
    public var file: HTTPResponseFile?
    /// A body produced over time instead of `body` (server-sent events), sent chunked until the stream ends.
    public var stream: HTTPStream?

    /// Creates a response from its parts.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], file: HTTPResponseFile? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.file = file
    }

    /// A JSON response of `value` encoded with sorted keys; an encoding failure becomes a 500 `encoding_failed` error.
    public static func json(_ status: Int, _ value: some Encodable, encoder: JSONEncoder? = nil) -> HTTPResponse {
        let encoder = encoder ?? defaultEncoder()
        do {
            var body = [UInt8](try encoder.encode(value))
            body.append(0x0A)
            return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
        } catch {
            return .error(500, code: .encodingFailed, message: "cannot encode the response: \(error)")
        }
    }

    /// The API's error shape: `{"error":{"code":"<stable code>","message":"<human text>"}}`.
    public static func error(_ status: Int, code: APIErrorCode, message: String) -> HTTPResponse {
        error(status, code: code.rawValue, message: message)
    }

    /// An error body with a code outside `APIErrorCode` (test servers, fakes); the daemon answers with the typed one.
    public static func error(_ status: Int, code: String, message: String) -> HTTPResponse {
        json(status, HTTPErrorBody(error: .init(code: code, message: message)))
    }

    /// A plain-text response (UTF-8, newline appended when missing).
    public static func text(_ status: Int, _ text: String) -> HTTPResponse {
        var body = Array(text.utf8)
        if body.last != 0x0A { body.append(0x0A) }
        return HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: body)
    }

    private static func defaultEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

/// The JSON body of every API error: `{"error":{"code":…,"message":…}}`.
public struct HTTPErrorBody: Codable, Sendable, Equatable {
    /// The code and message of an API error.
    public struct Detail: Codable, Sendable, Equatable {
        /// A stable, machine-readable code such as `body_too_large`.
        public var code: String
        /// A human-readable explanation quoting the bad value.
        public var message: String
        /// Creates the detail.
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }
    /// The error detail.
    public var error: Detail
    /// Creates the body.
    public init(error: Detail) { self.error = error }
}
