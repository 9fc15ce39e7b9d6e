import LastsetFormats

/// The strict reading of an API request body, before it is decoded into its type.
///
/// A null, a repeated key, an unknown key or a safety-relevant flag that is not exactly `true` or
/// `false` is refused: `{"dryRun": null}` or `{"dryRun": false, "dryRun": true}` must never turn
/// into a write.
public enum RequestBody {
    /// The keys a body may have, and those that must be booleans.
    public struct Shape: Sendable {
        /// Every accepted key.
        public var keys: [String]
        /// Keys whose value must be exactly `true` or `false`.
        public var booleans: Set<String>
        /// A shape from its parts.
        public init(keys: [String], booleans: Set<String> = []) {
            self.keys = keys
            self.booleans = booleans
        }
    }

    /// A body read once by the strict parser: the access check (is it a dry run?) and the decoding both use it.
    public struct Parsed: Sendable {
        /// The body as received.
        public let bytes: [UInt8]
        /// The parsed value, or why the body is not strict JSON.
        public let value: Result<JSONValue, RequestBodyError>

        /// Parses `bytes` (strict JSON, at most 16 levels deep and 1 MiB).
        public init(_ bytes: [UInt8]) {
            self.bytes = bytes
            do throws(RequestBodyError) {
                value = .success(try RequestBody.parse(bytes))
            } catch {
                value = .failure(error)
            }
        }

        /// Whether the body asks for a dry run: an object whose `dryRun` is exactly `true`. A body the strict
        /// parser refuses (a repeated key included) is none.
        public var isDryRun: Bool {
            if case .success(.object(let fields)) = value { return fields["dryRun"] == .bool(true) }
            return false
        }
    }

    private static func parse(_ body: [UInt8]) throws(RequestBodyError) -> JSONValue {
        guard !body.isEmpty else { throw RequestBodyError(code: .badJSON, message: "the request needs a JSON body") }
        do throws(JSONSyntaxError) {
            return try StrictJSONParser.parse(body, syntax: .json, limits: .init(maxDepth: 16, maxBytes: 1 << 20))
        } catch {
            let duplicate = error.isDuplicateKey
            throw RequestBodyError(
                code: duplicate ? .duplicateKey : .badJSON,
                message: duplicate ? "\(error.message) at line \(error.line), column \(error.column)" : "malformed JSON: \(error)"
            )
        }
    }

    /// The body's fields, after every strict check; throws the first broken rule.
    public static func fields(_ body: [UInt8], shape: Shape) throws(RequestBodyError) -> [String: JSONValue] {
        try fields(Parsed(body), shape: shape)
    }

    /// The fields of a parsed body, after every strict check; throws the first broken rule.
    public static func fields(_ body: Parsed, shape: Shape) throws(RequestBodyError) -> [String: JSONValue] {
        let value = try body.value.get()
        guard case .object(let fields) = value else {
            throw RequestBodyError(code: .badJSON, message: "the body must be a JSON object, not \(value.typeName)")
        }
        let unknown = fields.keys.filter { !shape.keys.contains($0) }.sorted()
        guard unknown.isEmpty else {
            throw RequestBodyError(
                code: .unknownKey,
                message:
                    "unknown key\(unknown.count == 1 ? "" : "s") \(unknown.map { "\"\($0)\"" }.joined(separator: ", ")); expected \(shape.keys.sorted().joined(separator: ", "))"
            )
        }
        for key in fields.keys.sorted() {
            let v = fields[key]!
            if v == .null {
                throw RequestBodyError(
                    code: .nullValue, message: "\"\(key)\" is null; give a value or leave the key out (null is never a default)"
                )
            }
            if shape.booleans.contains(key), case .bool = v {
            } else if shape.booleans.contains(key) {
                throw RequestBodyError(code: .badJSON, message: "\"\(key)\" must be true or false, not \(v.abbreviated())")
            }
        }
        return fields
    }
}

/// A request body refused by `RequestBody`: a stable error code and a message quoting the problem.
public struct RequestBodyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable code for the API's error body (`bad_json`, `duplicate_key`, `null_value`, `unknown_key`).
    public var code: APIErrorCode
    /// What is wrong.
    public var message: String
    /// An error from its parts.
    public init(code: APIErrorCode, message: String) {
        self.code = code
        self.message = message
    }
    /// The message.
    public var description: String { message }
}

extension CaptureRequest {
    /// The keys of a capture body.
    public static let bodyShape = RequestBody.Shape(keys: ["device"])
}

extension ApplyRequest {
    /// The keys of an apply body; `dryRun` decides whether frames are written, so it is exactly a boolean.
    public static let bodyShape = RequestBody.Shape(
        keys: ["device", "endpoint", "unit", "version", "dryRun", "onError", "expectVersion", "reason"], booleans: ["dryRun"])
}

extension ApplyAllRequest {
    /// The keys of a whole-machine apply body; `dryRun` is exactly a boolean.
    public static let bodyShape = RequestBody.Shape(
        keys: ["dryRun", "onError", "onPageFailure", "expectVersions", "reason", "versions"], booleans: ["dryRun"])
}
