/// An ordered list of HTTP header fields whose names are looked up case-insensitively.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in the order they were added, names as given.
    public private(set) var fields: [(name: String, value: String)]

    /// An empty header list.
    public init() { fields = [] }

    /// Headers from name/value pairs, kept in the given order.
    public init(_ fields: [(String, String)]) { self.fields = fields.map { (name: $0.0, value: $0.1) } }

    /// Headers from a dictionary literal such as `["Content-Type": "application/json"]`.
    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// The first value of the field `name` (any case), or nil; setting replaces every field of that name.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.lowercased() == name.lowercased() }?.value }
        set {
            let key = name.lowercased()
            fields.removeAll { $0.name.lowercased() == key }
            if let newValue { fields.append((name: name, value: newValue)) }
        }
    }

    /// Appends a field, keeping any existing field of the same name.
    public mutating func add(name: String, value: String) { fields.append((name: name, value: value)) }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// Equal when the same fields appear in the same order (names compared case-insensitively).
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name.lowercased() == $1.name.lowercased() && $0.value == $1.value }
    }
}
