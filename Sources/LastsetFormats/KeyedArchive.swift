/// An NSKeyedArchiver archive (`$archiver`, `$version`, `$top`, `$objects`) read from a property list,
/// with its object references resolved safely: every reference is checked against `$objects`, a cycle
/// is an error naming the objects on it, nesting is bounded, and each object is resolved once.
public struct KeyedArchive: Sendable {
    /// An archived value with its references resolved.
    public indirect enum Value: Hashable, Sendable {
        /// `$null` (an archived nil).
        case null
        /// NSString / NSMutableString.
        case string(String)
        /// An integer (NSNumber or an `encodeInteger:`).
        case integer(Int64)
        /// A real number.
        case real(Double)
        /// A boolean.
        case bool(Bool)
        /// NSData / NSMutableData.
        case data([UInt8])
        /// NSDate, seconds since 2001-01-01.
        case date(Double)
        /// NSArray, NSMutableArray, NSSet, NSOrderedSet.
        case array([Value])
        /// NSDictionary with string keys.
        case dictionary([String: Value])
        /// Any other class: its name and its encoded fields.
        case object(className: String, fields: [String: Value])

        /// The value's kind, for messages.
        public var kindName: String {
            switch self {
            case .null: return "nil"
            case .string: return "a string"
            case .integer: return "an integer"
            case .real: return "a real number"
            case .bool: return "a boolean"
            case .data: return "data"
            case .date: return "a date"
            case .array: return "an array"
            case .dictionary: return "a dictionary"
            case .object(let name, _): return "an object of class \(name)"
            }
        }
    }

    /// The archive's `$objects`.
    public let objects: [PropertyList]
    /// Index of `$top.root` in `objects`.
    public let root: Int
    /// The most objects a resolution may nest.
    public var maxDepth = 32

    /// The `$archiver` value written and expected.
    public static let archiverName = "NSKeyedArchiver"
    /// The `$version` written.
    public static let version: Int64 = 100000

    /// Checks the envelope of a keyed archive.
    public init(_ plist: PropertyList) throws(PropertyListError) {
        guard case .dictionary(let top) = plist else {
            throw PropertyListError("not a keyed archive: the property list is \(plist.kindName), not a dictionary")
        }
        guard case .string(let archiver)? = top["$archiver"] else {
            throw PropertyListError("not a keyed archive: no \"$archiver\" string")
        }
        guard archiver == Self.archiverName else {
            throw PropertyListError("not an NSKeyedArchiver archive: $archiver is \"\(archiver.prefix(60))\"")
        }
        guard case .array(let objects)? = top["$objects"] else {
            throw PropertyListError("keyed archive has no \"$objects\" array")
        }
        guard case .dictionary(let t)? = top["$top"], case .uid(let r)? = t["root"] else {
            throw PropertyListError("keyed archive has no \"$top\" with a \"root\" reference")
        }
        guard r < UInt64(objects.count) else {
            throw PropertyListError("keyed archive's root refers to object \(r), but $objects has \(objects.count)")
        }
        self.objects = objects
        root = Int(r)
    }

    /// The raw object at `index` (checked).
    public func object(_ index: Int) throws(PropertyListError) -> PropertyList {
        guard index >= 0, index < objects.count else {
            throw PropertyListError("reference to object \(index), but $objects has \(objects.count)")
        }
        return objects[index]
    }

    /// The class name and class chain of the object at `index` (its `$class` reference followed).
    public func className(of fields: [String: PropertyList]) throws(PropertyListError) -> (name: String, classes: [String]) {
        guard case .uid(let c)? = fields["$class"] else { throw PropertyListError("object has no $class reference") }
        guard c < UInt64(objects.count), case .dictionary(let cls) = objects[Int(c)] else {
            throw PropertyListError("$class refers to object \(c), which is not a class description")
        }
        guard case .string(let name)? = cls["$classname"] else {
            throw PropertyListError("class description (object \(c)) has no $classname")
        }
        var chain: [String] = []
        if case .array(let list)? = cls["$classes"] {
            for case .string(let s) in list { chain.append(s) }
        }
        return (name, chain)
    }

    /// Resolves the object at `index` and everything it refers to.
    public func resolve(_ index: Int) throws(PropertyListError) -> Value {
        var memo: [Int: Value] = [:]
        return try resolve(index, stack: [], memo: &memo)
    }

    /// Resolves the object at `index`; `stack` lists the objects being resolved around this one (a
    /// reference back to one of them is a cycle) and `memo` the objects already resolved (shared objects
    /// are resolved once, so references to references cannot expand exponentially).
    public func resolve(_ index: Int, stack: [Int], memo: inout [Int: Value]) throws(PropertyListError) -> Value {
        if let done = memo[index] { return done }
        let value = try resolveOnce(index, stack: stack, memo: &memo)
        memo[index] = value
        return value
    }

    private func resolveOnce(_ index: Int, stack: [Int], memo: inout [Int: Value]) throws(PropertyListError) -> Value {
        if let at = stack.firstIndex(of: index) {
            throw PropertyListError(
                "reference cycle: object " + (stack[at...] + [index]).map(String.init).joined(separator: " → "))
        }
        guard stack.count < maxDepth else { throw PropertyListError("objects nested deeper than \(maxDepth) levels") }
        let here = stack + [index]
        switch try object(index) {
        case .string(let s): return s == "$null" ? .null : .string(s)
        case .integer(let i): return .integer(i)
        case .real(let d): return .real(d)
        case .bool(let b): return .bool(b)
        case .data(let d): return .data(d)
        case .date(let d): return .date(d)
        case .uid(let u): throw PropertyListError("object \(index) is a bare reference (to \(u))")
        case .array(let items):
            var out: [Value] = []
            for item in items { out.append(try field(item, stack: here, memo: &memo)) }
            return .array(out)
        case .dictionary(let fields):
            let (name, _) = try className(of: fields)
            func member(_ key: String) throws(PropertyListError) -> Value? {
                guard let v = fields[key] else { return nil }
                return try field(v, stack: here, memo: &memo)
            }
            switch name {
            case "NSString", "NSMutableString":
                var text = try member("NS.string")
                if text == nil { text = try member("NS.bytes") }
                switch text {
                case .string(let s)?: return .string(s)
                case .data(let d)?:
                    guard let s = String(validating: d, as: UTF8.self) else {
                        throw PropertyListError("\(name) (object \(index)) holds bytes that are not UTF-8")
                    }
                    return .string(s)
                case let other:
                    throw PropertyListError("\(name) (object \(index)) holds \(other?.kindName ?? "nothing"), not text")
                }
            case "NSData", "NSMutableData":
                var bytes = try member("NS.data")
                if bytes == nil { bytes = try member("NS.bytes") }
                guard case .data(let d)? = bytes else {
                    throw PropertyListError("\(name) (object \(index)) holds no NS.data bytes")
                }
                return .data(d)
            case "NSDate":
                switch try member("NS.time") {
                case .real(let t)?: return .date(t)
                case .integer(let t)?: return .date(Double(t))
                case let other: throw PropertyListError("NSDate (object \(index)) has NS.time \(other?.kindName ?? "missing")")
                }
            case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
                guard case .array(let items)? = try member("NS.objects") else {
                    throw PropertyListError("\(name) (object \(index)) has no NS.objects list")
                }
                return .array(items)
            case "NSDictionary", "NSMutableDictionary":
                guard case .array(let keys)? = try member("NS.keys"), case .array(let values)? = try member("NS.objects"),
                    keys.count == values.count
                else { throw PropertyListError("\(name) (object \(index)) has no matching NS.keys and NS.objects") }
                var dict: [String: Value] = [:]
                for (k, v) in zip(keys, values) {
                    guard case .string(let key) = k else {
                        throw PropertyListError("\(name) (object \(index)) has a key that is \(k.kindName)")
                    }
                    dict[key] = v
                }
                return .dictionary(dict)
            default:
                var out: [String: Value] = [:]
                for (key, v) in fields where key != "$class" { out[key] = try field(v, stack: here, memo: &memo) }
                return .object(className: name, fields: out)
            }
        }
    }

    /// A field's value: a reference is resolved, an inline value taken as it is.
    private func field(_ v: PropertyList, stack: [Int], memo: inout [Int: Value]) throws(PropertyListError) -> Value {
        switch v {
        case .uid(let u):
            guard u < UInt64(objects.count) else {
                throw PropertyListError("reference to object \(u), but $objects has \(objects.count)")
            }
            return try resolve(Int(u), stack: stack, memo: &memo)
        case .string(let s): return .string(s)
        case .integer(let i): return .integer(i)
        case .real(let d): return .real(d)
        case .bool(let b): return .bool(b)
        case .data(let d): return .data(d)
        case .date(let d): return .date(d)
        case .array(let items):
            var out: [Value] = []
            for item in items { out.append(try field(item, stack: stack, memo: &memo)) }
            return .array(out)
        case .dictionary: throw PropertyListError("an inline dictionary where a reference was expected")
        }
    }

    /// The plist of an archive whose `$objects` are `objects` and whose root is object 1 (`$objects[0]`
    /// must be `"$null"`).
    public static func envelope(objects: [PropertyList], root: Int = 1) -> PropertyList {
        .dictionary([
            "$archiver": .string(archiverName),
            "$version": .integer(version),
            "$top": .dictionary(["root": .uid(UInt64(root))]),
            "$objects": .array(objects),
        ])
    }

    /// A `$class` description: `{$classname: name, $classes: chain}`.
    public static func classDescription(_ chain: [String]) -> PropertyList {
        .dictionary(["$classname": .string(chain[0]), "$classes": .array(chain.map(PropertyList.string))])
    }
}
