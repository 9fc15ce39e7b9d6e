import Foundation
import LastsetFormats

/// Decodes a request body's type from the value the strict parser made of it (`RequestBody.Parsed`), so a body is
/// read once: its access check, its strict checks and its decoding all use that one parse. It answers as the API's
/// `JSONDecoder` (`APICoding.decoder()`) does — the same values accepted (a whole number written `1.0` or `1e2` is
/// an integer, a fraction or an out-of-range number is not), the same errors with the same coding paths and
/// descriptions — which `RequestBodyDecoderTests` and the `requestBody` fuzz target check against it.
struct RequestBodyDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: JSONValue, codingPath: [any CodingKey] = []) {
        self.value = value
        self.codingPath = codingPath
    }

    /// Decodes `type` from `value`.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try RequestBodyDecoder(value).decodeValue(type)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if value == .null { throw null([String: Any].self, "Cannot get keyed decoding container") }
        guard case .object(let fields) = value else {
            throw mismatch([String: Any].self, value, codingPath)
        }
        return KeyedDecodingContainer(Keyed<Key>(fields: fields, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if value == .null { throw null([Any].self, "Cannot get unkeyed decoding container") }
        guard case .array(let items) = value else { throw mismatch([Any].self, value, codingPath) }
        return Unkeyed(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

    /// `T` from this decoder's value: the scalars read directly, dates and URLs as `APICoding`'s `JSONDecoder` reads
    /// them, anything else through its own `init(from:)`. (`Decimal`, which `JSONDecoder` reads from a number's
    /// text, is not among them: no body has one, and `RequestBodyDecoderTests` would show the difference.)
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        switch T.self {
        case is String.Type: return try exactly(string())
        case is Bool.Type: return try exactly(bool())
        case is Int.Type: return try exactly(integer(Int.self))
        case is Int64.Type: return try exactly(integer(Int64.self))
        case is Int32.Type: return try exactly(integer(Int32.self))
        case is Int16.Type: return try exactly(integer(Int16.self))
        case is Int8.Type: return try exactly(integer(Int8.self))
        case is UInt.Type: return try exactly(integer(UInt.self))
        case is UInt64.Type: return try exactly(integer(UInt64.self))
        case is UInt32.Type: return try exactly(integer(UInt32.self))
        case is UInt16.Type: return try exactly(integer(UInt16.self))
        case is UInt8.Type: return try exactly(integer(UInt8.self))
        case is Double.Type: return try exactly(floating(Double.self))
        case is Float.Type: return try exactly(floating(Float.self))
        case is Date.Type: return try exactly(date())
        case is URL.Type: return try exactly(url())
        default: return try T(from: self)
        }
    }

    /// `value` as the `T` the switch above matched it to (never fails; a failure would be a defect, answered as a
    /// type mismatch rather than a trap).
    private func exactly<T>(_ value: Any) throws -> T {
        guard let typed = value as? T else { throw mismatch(T.self, self.value, codingPath) }
        return typed
    }

    /// `JSONDecoder`'s answer to a null where a value must be.
    private func null(_ type: Any.Type, _ what: String) -> DecodingError {
        DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "\(what) -- found null value instead"))
    }

    /// A null where a scalar of `type` must be.
    private func nullScalar<T>(_ type: T.Type) throws {
        if value == .null { throw null(type, "Cannot get value of type \(type)") }
    }

    private func string() throws -> String {
        try nullScalar(String.self)
        guard case .string(let s) = value else { throw mismatch(String.self, value, codingPath) }
        return s
    }

    private func bool() throws -> Bool {
        try nullScalar(Bool.self)
        guard case .bool(let b) = value else { throw mismatch(Bool.self, value, codingPath) }
        return b
    }

    /// An integer from any number that is one exactly (`1`, `1.0`, `1e2`); a fraction or a number out of the type's
    /// range is refused as `JSONDecoder` refuses it (a corrupted-data error with an empty path).
    private func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        try nullScalar(type)
        let exact: I? =
            switch value {
            case .int(let i): I(exactly: i)
            case .uint(let u): I(exactly: u)
            case .double(let d): I(exactly: d)
            default: throw mismatch(I.self, value, codingPath)
            }
        guard let exact else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON."))
        }
        return exact
    }

    /// A floating-point number; the strings `inf`, `-inf` and `nan` as `APICoding` reads them.
    private func floating<F: BinaryFloatingPoint & LosslessStringConvertible>(_ type: F.Type) throws -> F {
        try nullScalar(type)
        switch value {
        case .int(let i): return F(i)
        case .uint(let u): return F(u)
        case .double(let d): return F(d)
        case .string("inf"): return .infinity
        case .string("-inf"): return -.infinity
        case .string("nan"): return .nan
        default: throw mismatch(F.self, value, codingPath)
        }
    }

    /// A date as `APICoding.decoder()` reads one: ISO 8601 text (`TimeText`).
    private func date() throws -> Date {
        let text = try string()
        do {
            return try TimeText.parse(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(error)"))
        }
    }

    /// A URL from its text, as `JSONDecoder` reads one.
    private func url() throws -> URL {
        guard let url = URL(string: try string()) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Invalid URL string."))
        }
        return url
    }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let fields: [String: JSONValue]
        let codingPath: [any CodingKey]

        var allKeys: [Key] { fields.keys.sorted().compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

        private func field(_ key: Key) throws -> JSONValue {
            guard let value = fields[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key,
                    .init(
                        codingPath: codingPath,
                        debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
            }
            return value
        }

        private func decoder(_ key: Key) throws -> RequestBodyDecoder {
            RequestBodyDecoder(try field(key), codingPath: codingPath + [key])
        }

        func decodeNil(forKey key: Key) throws -> Bool { try field(key) == .null }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(key).decodeValue(type) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try decoder(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try decoder(key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            RequestBodyDecoder(fields["super"] ?? .null, codingPath: codingPath + [IndexKey(stringValue: "super")])
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            RequestBodyDecoder(fields[key.stringValue] ?? .null, codingPath: codingPath + [key])
        }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        let items: [JSONValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0

        init(items: [JSONValue], codingPath: [any CodingKey]) {
            self.items = items
            self.codingPath = codingPath
        }

        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        private mutating func next<T>(_ type: T.Type) throws -> RequestBodyDecoder {
            let path = codingPath + [IndexKey(index: currentIndex)]
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    type, .init(codingPath: path, debugDescription: "Unkeyed container is at end."))
            }
            defer { currentIndex += 1 }
            return RequestBodyDecoder(items[currentIndex], codingPath: path)
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, items[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decodeValue(type) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try next([String: Any].self).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try next([Any].self).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder { try next(Any.self) }
    }

    private struct Single: SingleValueDecodingContainer {
        let decoder: RequestBodyDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool { decoder.value == .null }

        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
    }

    /// A key of an array element (`Index 3`) or of a super decoder.
    private struct IndexKey: CodingKey {
        let stringValue: String
        let intValue: Int?
        init(index: Int) {
            stringValue = "Index \(index)"
            intValue = index
        }
        init(stringValue: String) {
            self.stringValue = stringValue
            intValue = nil
        }
        init?(intValue: Int) { self.init(index: intValue) }
    }
}

/// `JSONDecoder`'s type mismatch, worded as it words it ("Expected to decode Int but found a string instead.").
private func mismatch(_ type: Any.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) -> DecodingError {
    let found: String =
        switch value {
        case .null: "null"
        case .bool: "bool"
        case .int, .uint, .double: "number"
        case .string: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        }
    let name =
        type == [String: Any].self ? "Dictionary<String, Any>" : type == [Any].self ? "Array<Any>" : "\(type)"
    return DecodingError.typeMismatch(
        type, .init(codingPath: codingPath, debugDescription: "Expected to decode \(name) but found \(found) instead."))
}
