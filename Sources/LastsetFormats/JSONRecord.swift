import Foundation

/// A JSON object shape declared once: its fields, in key order, in one `fields` function. The fast writer
/// (`JSONWriter`) and `Codable` (the decoder, and `JSONEncoder` for the bodies still written by it) both follow
/// that one declaration, so a field cannot be written by one and missed by the other — the drift of the
/// hand-written writers this replaces (GRDB drives its fast record encoder from the record's own conformance in
/// the same spirit; a Swift `Encoder` over `JSONWriter` measured 4–6× slower than this, see docs/BENCHMARKS.md).
///
///     extension WriteStep: JSONRecord {
///         public static let placeholder = WriteStep(address: 0, value: 0)
///         @inlinable public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self)
///             throws(F.Failure)
///         {
///             try f.field("address", &r.address)
///             try f.field("value", &r.value)
///         }
///     }
///
/// Keys are listed in ascending byte order (the order `JSONEncoder`'s `.sortedKeys` writes; a test checks every
/// record), absent optionals are left out, and `fields` is `@inlinable` so the writer is specialised where it is
/// used: no dynamic dispatch per field.
public protocol JSONRecord: JSONFieldValue {
    /// What decoding starts from: every field is then set from the JSON (a required one missing is an error), so
    /// no placeholder value survives a decode.
    static var placeholder: Self { get }

    /// Visits every field once, in key order: the writer reads each value, the decoder sets it.
    static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure)

    /// Checks across fields once every field is decoded (a record with none: nothing to check).
    mutating func decoded() throws(JSONFieldProblem)
}

/// A value with a JSON form: the fast writer writes it, `Codable` reads it.
public protocol JSONFieldValue: Codable {
    /// Writes the value as its Codable form.
    func write(to w: inout JSONWriter)
}

/// What visits a record's fields: the fast writer, `Codable`'s encoder and decoder, a test's key list.
public protocol JSONFields: ~Copyable {
    /// What visiting can throw (`Never` for the writer).
    associatedtype Failure: Error

    /// A required field.
    mutating func field<V: JSONFieldValue>(_ key: StaticString, _ value: inout V) throws(Failure)
    /// An optional field: left out when nil, nil when absent.
    mutating func field<V: JSONFieldValue>(_ key: StaticString, _ value: inout V?) throws(Failure)
    /// A field always written, read as `absent` when missing (records written before it existed).
    mutating func field<V: JSONFieldValue>(_ key: StaticString, _ value: inout V, absent: V) throws(Failure)
    /// A field kept in one form and written in another (`C` converts, and says why a form is refused).
    mutating func field<C: JSONFieldCodec>(_ key: StaticString, _ value: inout C.Value, as codec: C.Type) throws(Failure)
    /// A flag written only when true, false when absent.
    mutating func flag(_ key: StaticString, _ value: inout Bool) throws(Failure)
    /// An array written one item a line (the long lists of the files and bodies, readable with `grep`).
    mutating func lines<V: JSONFieldValue>(_ key: StaticString, _ value: inout [V]) throws(Failure)
}

/// Converts a field kept in one form (`Value`) to the form written (`Form`) and back.
public protocol JSONFieldCodec {
    /// The field as the record keeps it.
    associatedtype Value
    /// The field as JSON holds it.
    associatedtype Form: JSONFieldValue
    /// The written form of `value`.
    static func form(_ value: Value) -> Form
    /// The value of a written form; throws when the form is not one.
    static func value(_ form: Form) throws(JSONFieldProblem) -> Value
    /// Writes `value`'s form (default: `form(value)` written; a codec may write it without making it).
    static func write(_ value: Value, to w: inout JSONWriter)
}

extension JSONFieldCodec {
    @inlinable
    public static func write(_ value: Value, to w: inout JSONWriter) { form(value).write(to: &w) }
}

/// Why a decoded field (or record) is refused, quoted in the decoding error with the field's path.
public struct JSONFieldProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// The field at fault (nil: the record as a whole).
    public var key: String?
    /// What is wrong, quoting the value.
    public var message: String

    /// A problem of field `key` (nil: of the record).
    public init(key: String? = nil, _ message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { (key.map { "\($0): " } ?? "") + message }
}

extension JSONRecord {
    /// Writes the record: its fields in key order between braces.
    @inlinable
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        // `fields` takes the record inout (the decoder sets it): the writer is given a copy, which it only reads.
        var r = self
        Self.fields(&w, &r)
        w.endObject()
    }

    /// Nothing to check across fields.
    public mutating func decoded() throws(JSONFieldProblem) {}

    /// Decodes the fields `fields` lists, then `decoded()`.
    @inlinable
    public init(from decoder: any Decoder) throws {
        var r = Self.placeholder
        var fields = JSONDecodingFields(container: try decoder.container(keyedBy: JSONKey.self))
        try Self.fields(&fields, &r)
        if let problem = Self.problem(decoding: &r) {
            let path = decoder.codingPath + (problem.key.map { [JSONKey(stringValue: $0)] } ?? [])
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: path, debugDescription: problem.message))
        }
        self = r
    }

    /// What `decoded()` refuses in `r`, nil when nothing.
    @usableFromInline
    static func problem(decoding r: inout Self) -> JSONFieldProblem? {
        do {
            try r.decoded()
            return nil
        } catch {
            return error
        }
    }

    /// Encodes the fields `fields` lists (absent optionals left out), for `JSONEncoder`.
    @inlinable
    public func encode(to encoder: any Encoder) throws {
        var fields = JSONEncodingFields(container: encoder.container(keyedBy: JSONKey.self))
        var r = self
        try Self.fields(&fields, &r)
    }
}

/// A key of a record's `fields`, for `Codable`.
public struct JSONKey: CodingKey, Hashable, Sendable {
    public var stringValue: String
    public var intValue: Int? { nil }

    public init(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }

    /// The key named by a field.
    @inlinable
    public init(_ key: StaticString) { stringValue = key.description }
}

/// `fields` for `JSONDecoder`: each field read from the record's keyed container.
@usableFromInline
struct JSONDecodingFields: JSONFields {
    @usableFromInline
    typealias Failure = any Error
    @usableFromInline
    let container: KeyedDecodingContainer<JSONKey>

    @inlinable
    init(container: KeyedDecodingContainer<JSONKey>) { self.container = container }

    @inlinable
    mutating func field<V: JSONFieldValue>(_ key: StaticString, _ value: inout V) throws {
        value = try container.decode(V.self, forKey: JSONKey(key))
    }

    @inlinable
    mutating func field<V: JSONFieldValue>(_ key: StaticString, _ value: inout V?) throws {
        value = try container.decodeIfPresent(V.self, forKey: JSONKey(key))
    }

    @inlinable
    mutating func field<V: JSONFieldValue>(_ key: StaticString, _ value: inout V, absent: V) throws {
        value = try container.decodeIfPresent(V.self, forKey: JSONKey(key)) ?? absent
    }

    @inlinable
    mutating func field<C: JSONFieldCodec>(_ key: StaticString, _ value: inout C.Value, as codec: C.Type) throws {
        let k = JSONKey(key)
        do {
            value = try C.value(try container.decode(C.Form.self, forKey: k))
        } catch let problem as JSONFieldProblem {
            throw DecodingError.dataCorruptedError(forKey: k, in: container, debugDescription: problem.message)
        }
    }

    @inlinable
    mutating func flag(_ key: StaticString, _ value: inout Bool) throws {
        value = try container.decodeIfPresent(Bool.self, forKey: JSONKey(key)) ?? false
    }

    @inlinable
    mutating func lines<V: JSONFieldValue>(_ key: StaticString, _ value: inout [V]) throws {
        value = try container.decode([V].self, forKey: JSONKey(key))
    }
}

/// `fields` for `JSONEncoder`: each field written to the record's keyed container.
@usableFromInline
struct JSONEncodingFields: JSONFields {
    @usableFromInline
    typealias Failure = any Error
    @usableFromInline
    var container: KeyedEncodingContainer<JSONKey>

    @inlinable
    init(container: KeyedEncodingContainer<JSONKey>) { self.container = container }

    @inlinable
    mutating func field<V: JSONFieldValue>(_ key: StaticString, _ value: inout V) throws {
        try container.encode(value, forKey: JSONKey(key))
    }

    @inlinable
    mutating func field<V: JSONFieldValue>(_ key: StaticString, _ value: inout V?) throws {
        try container.encodeIfPresent(value, forKey: JSONKey(key))
    }

    @inlinable
    mutating func field<V: JSONFieldValue>(_ key: StaticString, _ value: inout V, absent: V) throws {
        try container.encode(value, forKey: JSONKey(key))
    }

    @inlinable
    mutating func field<C: JSONFieldCodec>(_ key: StaticString, _ value: inout C.Value, as codec: C.Type) throws {
        try container.encode(C.form(value), forKey: JSONKey(key))
    }

    @inlinable
    mutating func flag(_ key: StaticString, _ value: inout Bool) throws {
        if value { try container.encode(true, forKey: JSONKey(key)) }
    }

    @inlinable
    mutating func lines<V: JSONFieldValue>(_ key: StaticString, _ value: inout [V]) throws {
        try container.encode(value, forKey: JSONKey(key))
    }
}

/// The fast writer visits a record's fields by writing them.
extension JSONWriter: JSONFields {
    public typealias Failure = Never

    @inlinable
    public mutating func field<V: JSONFieldValue>(_ key: StaticString, _ value: inout V) {
        self.key(key)
        value.write(to: &self)
    }

    @inlinable
    public mutating func field<V: JSONFieldValue>(_ key: StaticString, _ value: inout V?) {
        guard value != nil else { return }
        self.key(key)
        value!.write(to: &self)
    }

    @inlinable
    public mutating func field<V: JSONFieldValue>(_ key: StaticString, _ value: inout V, absent: V) {
        self.key(key)
        value.write(to: &self)
    }

    @inlinable
    public mutating func field<C: JSONFieldCodec>(_ key: StaticString, _ value: inout C.Value, as codec: C.Type) {
        self.key(key)
        C.write(value, to: &self)
    }

    @inlinable
    public mutating func flag(_ key: StaticString, _ value: inout Bool) {
        guard value else { return }
        self.key(key)
        bool(true)
    }

    @inlinable
    public mutating func lines<V: JSONFieldValue>(_ key: StaticString, _ value: inout [V]) {
        self.key(key)
        beginArray()
        // By index: an element is written in place, not copied first (`write` copies a record once).
        for i in value.indices {
            lineBreak()
            value[i].write(to: &self)
        }
        endArray()
    }
}

extension String: JSONFieldValue {
    @inlinable
    public func write(to w: inout JSONWriter) { w.string(self) }
}

extension Int: JSONFieldValue {
    @inlinable
    public func write(to w: inout JSONWriter) { w.int(self) }
}

extension UInt16: JSONFieldValue {
    @inlinable
    public func write(to w: inout JSONWriter) { w.int(Int(self)) }
}

extension Bool: JSONFieldValue {
    @inlinable
    public func write(to w: inout JSONWriter) { w.bool(self) }
}

extension Double: JSONFieldValue {
    @inlinable
    public func write(to w: inout JSONWriter) { w.double(self) }
}

extension Date: JSONFieldValue {
    /// The API's ISO 8601 text (as `APICoding` encodes and decodes dates).
    @inlinable
    public func write(to w: inout JSONWriter) { w.date(self) }
}

extension Array: JSONFieldValue where Element: JSONFieldValue {
    @inlinable
    public func write(to w: inout JSONWriter) {
        w.beginArray()
        for i in indices { self[i].write(to: &w) }
        w.endArray()
    }
}

extension JSONFieldValue where Self: RawRepresentable, RawValue == String {
    /// An enum of names is its name.
    @inlinable
    public func write(to w: inout JSONWriter) { w.string(rawValue) }
}
