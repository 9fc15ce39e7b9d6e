import Foundation
import LastsetClient
import LastsetCore

/// The daemon's control API as the CLI uses it: typed GET/POST over `HTTPClient`, API errors turned into `CLIError`.
struct DaemonAPI: Sendable {
    /// The underlying blocking HTTP client.
    let client: HTTPClient

    /// A client for `endpoint`; `token` is sent as a bearer token (TCP only needs it).
    init(endpoint: ClientEndpoint, token: String?) {
        client = HTTPClient(endpoint: endpoint, timeout: .seconds(60), bearerToken: token)
    }

    /// The body of an API error: `{"error":{"code":…,"message":…}}`.
    private struct ErrorBody: Decodable {
        struct Detail: Decodable {
            var code: String
            var message: String
        }
        var error: Detail
    }

    /// Sends a request and returns the successful (2xx) response; any other status becomes a `CLIError`.
    func send(_ method: String, _ path: String, body: [UInt8]? = nil) throws(CLIError) -> HTTPClientResponse {
        let response: HTTPClientResponse
        do {
            response = try client.send(method: method, path: path, body: body)
        } catch {
            throw CLIError(error.message)
        }
        guard (200..<300).contains(response.status) else {
            throw Self.failure(status: response.status, body: response.body, method: method, path: path)
        }
        return response
    }

    /// The error of a reply that is not 2xx: the API's message and code, else the status and the start of the body.
    static func failure(status: Int, body: [UInt8], method: String, path: String) -> CLIError {
        if let error = try? JSONDecoder().decode(ErrorBody.self, from: Data(body)) {
            return CLIError("\(error.error.message) (\(error.error.code))", code: error.error.code)
        }
        var text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count > 200 { text = String(text.prefix(200)) + "…" }
        return CLIError("the daemon answered \(method) \(path) with HTTP \(status)" + (text.isEmpty ? "" : ": \(text)"))
    }

    /// GETs `path` and decodes the JSON body as `T`.
    func get<T: Decodable>(_ type: T.Type, _ path: String) throws(CLIError) -> T {
        try decode(type, send("GET", path), "GET", path)
    }

    /// DELETEs `path` and decodes the JSON reply as `T`.
    func delete<T: Decodable>(_ type: T.Type, _ path: String) throws(CLIError) -> T {
        try decode(type, send("DELETE", path), "DELETE", path)
    }

    /// POSTs `body` to `path` and decodes the JSON reply as `T`.
    func post<T: Decodable>(_ type: T.Type, _ path: String, body: [UInt8]) throws(CLIError) -> T {
        try decode(type, send("POST", path, body: body), "POST", path)
    }

    /// POSTs `value` encoded as JSON to `path` and decodes the reply as `T`.
    func post<T: Decodable>(_ type: T.Type, _ path: String, json value: some Encodable) throws(CLIError) -> T {
        let body: [UInt8]
        do {
            body = [UInt8](try APICoding.encoder().encode(value))
        } catch {
            throw CLIError("cannot encode the request to \(path): \(error)")
        }
        return try post(type, path, body: body)
    }

    private func decode<T: Decodable>(_ type: T.Type, _ response: HTTPClientResponse, _ method: String, _ path: String)
        throws(CLIError) -> T
    {
        do {
            return try APICoding.decoder().decode(type, from: Data(response.body))
        } catch {
            throw CLIError("unexpected reply to \(method) \(path): \(APICoding.describe(error))")
        }
    }

    /// `?k=v&…` of the pairs with a value, each value escaped ("" when none has one).
    static func query(_ pairs: [(String, String?)]) -> String {
        let given = pairs.compactMap { key, value in value.map { "\(key)=\(escape($0))" } }
        return given.isEmpty ? "" : "?" + given.joined(separator: "&")
    }

    /// Percent-encodes one path segment or query value (everything but RFC 3986 unreserved characters).
    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(Unicode.Scalar(byte)))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2, with: "0")
            }
        }
        return out
    }
}

extension String {
    /// The string padded on the left with `pad` to at least `width` characters.
    func leftPadded(to width: Int, with pad: Character = " ") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
