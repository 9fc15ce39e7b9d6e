import Foundation

extension RequestBody {
    /// The router's one path for a JSON body: the strict checks of `fields(_:shape:)`, then decoding into `T`,
    /// each failure a `RequestBodyError` naming the key or path (fuzzed as `requestBody`).
    public static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8], shape: Shape) throws(RequestBodyError) -> T {
        try decode(type, from: Parsed(body), shape: shape)
    }

    /// `decode(_:from:shape:)` of a body the router has already parsed (for its access check): decoded from that
    /// parse (`RequestBodyDecoder`), never read again.
    public static func decode<T: Decodable>(_ type: T.Type, from body: Parsed, shape: Shape) throws(RequestBodyError) -> T {
        let fields = try fields(body, shape: shape)
        do {
            return try RequestBodyDecoder.decode(type, from: .object(fields))
        } catch let DecodingError.keyNotFound(key, _) {
            throw RequestBodyError(code: .badJSON, message: "missing key \"\(key.stringValue)\"")
        } catch let DecodingError.typeMismatch(_, ctx), let DecodingError.valueNotFound(_, ctx) {
            let path = ctx.codingPath.map(\.stringValue).joined(separator: ".")
            throw RequestBodyError(code: .badJSON, message: "wrong type at \"\(path)\": \(ctx.debugDescription)")
        } catch let DecodingError.dataCorrupted(ctx) {
            let path = ctx.codingPath.map(\.stringValue).joined(separator: ".")
            throw RequestBodyError(
                code: .badJSON,
                message: "malformed JSON" + (path.isEmpty ? "" : " at \"\(path)\"") + ": \(ctx.debugDescription)")
        } catch {
            throw RequestBodyError(code: .badJSON, message: "malformed JSON: \(error)")
        }
    }
}
