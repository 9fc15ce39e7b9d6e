import Foundation
import LastsetFormats

/// Pages generated from a SunSpec model definition (the JSON models SunSpec publishes, e.g. pysunspec2's
/// `models/json/model_123.json`) and the model as a scan read it: the writable (`access: "RW"`) points, each a
/// register with its type, its scale (10^SF, the scale-factor point's value as read), its unit and enum, under
/// `unsetStyle: "sunspec"` (SunSpec's "not implemented" values: 0x8000… for signed, 0xFFFF… for unsigned, NaN for
/// floats; `unset: 0` for accumulators, all-zero bytes for strings). Pure; a definition it cannot follow is an error
/// naming the point.
public enum SunSpecPages {
    /// A generated page and what the generator could not carry over (a scale factor not implemented, …).
    public struct Generated: Sendable, Hashable {
        /// The page.
        public var page: PageDefinition
        /// Notes for the person adding the page.
        public var notes: [String]
    }

    /// A definition the generator cannot follow.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, naming the model and point.
        public var message: String
        /// The message.
        public var description: String { message }
    }

    /// The page of `model` (as found by a scan, with its registers) from its definition's JSON text; `pageId` names it
    /// (`sunspec-123`, `sunspec-123-2` for a second instance).
    public static func page(definition: [UInt8], model: SunSpecChain.Model, pageId: String) throws(Problem) -> Generated {
        let root: JSONValue
        do {
            root = try StrictJSONParser.parse(definition, syntax: .json, limits: .init(maxDepth: 32, maxBytes: 4 << 20))
        } catch {
            throw Problem(message: "model \(model.id): the definition is not JSON: \(error)")
        }
        guard case .object(let top) = root, case .object(let group)? = top["group"] else {
            throw Problem(message: "model \(model.id): the definition has no \"group\"")
        }
        if let id = top["id"]?.number, Int(exactly: id) != model.id {
            throw Problem(message: "model \(model.id): the definition is model \(id)")
        }
        var layout = Layout(model: model)
        try layout.walk(group, at: 0, path: "", scopes: [])
        let title = (group["label"]?.stringValue).map { "SunSpec \(model.id): \($0)" } ?? "SunSpec model \(model.id)"
        let page = PageDefinition(
            id: pageId, title: title, registers: layout.registers, unsetStyle: .sunspec,
            description: "Generated from SunSpec model \(model.id) at \(model.address) (its RW points).")
        return Generated(page: page, notes: layout.notes)
    }

    /// The walk over a model's groups: each point's offset from the model's header, the RW points as registers.
    struct Layout {
        let model: SunSpecChain.Model
        var registers: [RegisterDefinition] = []
        var notes: [String] = []

        init(model: SunSpecChain.Model) { self.model = model }

        /// The word at `offset` registers from the model's header (the header is offsets 0 and 1), if read.
        func word(at offset: Int) -> UInt16? {
            guard offset >= 0, offset < model.length + 2 else { return nil }
            if offset == 0 { return UInt16(truncatingIfNeeded: model.id) }
            if offset == 1 { return UInt16(truncatingIfNeeded: model.length) }
            guard let words = model.words, offset - 2 < words.count else { return nil }
            return words[offset - 2]
        }

        /// Lays out `group` from `offset`; returns the offset after it. `scopes`: the enclosing groups' points.
        @discardableResult
        mutating func walk(_ group: [String: JSONValue], at start: Int, path: String, scopes: [[String: Int]]) throws(Problem)
            -> Int
        {
            var offset = start
            var points: [String: Int] = [:]
            var writable: [(point: [String: JSONValue], name: String, type: String, size: Int, offset: Int)] = []
            for case .object(let point) in group["points"]?.arrayValue ?? [] {
                guard let name = point["name"]?.stringValue, let size = point["size"]?.number.flatMap({ Int(exactly: $0) }),
                    (1...125).contains(size), let type = point["type"]?.stringValue
                else {
                    throw Problem(
                        message: "model \(model.id): a point of \(path.isEmpty ? "the model" : path) lacks name, size or type")
                }
                points[name] = offset
                if point["access"]?.stringValue == "RW", type != "pad" { writable.append((point, name, type, size, offset)) }
                offset += size
            }
            guard offset <= model.length + 2 else {
                throw Problem(
                    message: "model \(model.id): the definition runs to register \(offset), past its length \(model.length) + 2")
            }
            // A scale factor is usually declared after the points it scales: the whole group's points are known first.
            for w in writable {
                try add(
                    w.point, name: w.name, type: w.type, size: w.size, offset: w.offset, path: path, scopes: [points] + scopes)
            }
            for case .object(let sub) in group["groups"]?.arrayValue ?? [] {
                let name = sub["name"]?.stringValue ?? "group"
                let count = try repeats(sub, at: offset, scopes: [points] + scopes)
                for i in 0..<count {
                    let subPath = (path.isEmpty ? "" : path + ".") + name + (count > 1 || sub["count"] != nil ? "[\(i + 1)]" : "")
                    offset = try walk(sub, at: offset, path: subPath, scopes: [points] + scopes)
                }
            }
            guard offset <= model.length + 2 else {
                throw Problem(
                    message: "model \(model.id): the definition runs to register \(offset), past its length \(model.length) + 2")
            }
            return offset
        }

        /// How many times a group repeats: its `count` (a number, or the value of a point named so), 1 without one.
        func repeats(_ group: [String: JSONValue], at offset: Int, scopes: [[String: Int]]) throws(Problem) -> Int {
            switch group["count"] {
            case nil: return 1
            case .string(let name)?:
                guard let at = scopes.lazy.compactMap({ $0[name] }).first, let value = word(at: at) else {
                    throw Problem(message: "model \(model.id): group count \"\(name)\" names no point read before it")
                }
                return Int(value)
            case let value?:
                guard let n = value.number.flatMap({ Int(exactly: $0) }), (0...1000).contains(n) else {
                    throw Problem(message: "model \(model.id): group count \(value) is not a number of repeats")
                }
                guard n == 0 else { return n }
                // Count 0: the group repeats to the end of the model.
                guard let size = Self.size(of: group), size > 0 else {
                    throw Problem(message: "model \(model.id): a group repeating to the model's end has no fixed size")
                }
                return max(0, (model.length + 2 - offset) / size)
            }
        }

        /// The registers one instance of `group` takes; nil when a nested group's count is not a fixed number.
        static func size(of group: [String: JSONValue]) -> Int? {
            var size = 0
            for case .object(let point) in group["points"]?.arrayValue ?? [] {
                guard let n = point["size"]?.number.flatMap({ Int(exactly: $0) }) else { return nil }
                size += n
            }
            for case .object(let sub) in group["groups"]?.arrayValue ?? [] {
                guard let inner = Self.size(of: sub) else { return nil }
                switch sub["count"] {
                case nil: size += inner
                case let count?:
                    guard let n = count.number.flatMap({ Int(exactly: $0) }), n > 0 else { return nil }
                    size += n * inner
                }
            }
            return size
        }

        /// The register of one RW point.
        mutating func add(
            _ point: [String: JSONValue], name: String, type: String, size: Int, offset: Int, path: String,
            scopes: [[String: Int]]
        ) throws(Problem) {
            let id = "sunspec\(model.id)." + (path.isEmpty ? "" : path + ".") + name
            guard let (registerType, unset) = Self.type(type, size: size) else {
                throw Problem(
                    message:
                        "model \(model.id): point \(name) has type \"\(type)\" of \(size) registers, which Lastset has no type for"
                )
            }
            var r = RegisterDefinition(
                registerId: id, name: point["label"]?.stringValue ?? name, address: model.address + offset, type: registerType)
            r.unset = unset
            r.unit = point["units"]?.stringValue
            if type.hasPrefix("enum"), let symbols = point["symbols"]?.arrayValue {
                r.enum = symbols.compactMap { s -> ExactNumber? in
                    guard case .object(let f) = s, let v = f["value"]?.number, let i = Int64(exactly: v) else { return nil }
                    return ExactNumber(i)
                }
            }
            if let sf = point["sf"] { r.scale = scale(sf, point: name, scopes: scopes) }
            registers.append(r)
        }

        /// 10^SF: a literal, or the value of the scale-factor point as read (none when it is not implemented).
        mutating func scale(_ sf: JSONValue, point: String, scopes: [[String: Int]]) -> Double? {
            let exponent: Int
            if let n = sf.number.flatMap({ Int(exactly: $0) }) {
                exponent = n
            } else if let name = sf.stringValue, let at = scopes.lazy.compactMap({ $0[name] }).first, let w = word(at: at) {
                guard w != 0x8000 else {
                    notes.append("\(point): its scale factor \(name) is not implemented (0x8000): no scale")
                    return nil
                }
                exponent = Int(Int16(bitPattern: w))
            } else {
                notes.append("\(point): its scale factor \(sf) was not read: no scale")
                return nil
            }
            guard (-10...10).contains(exponent) else {
                notes.append("\(point): scale factor \(exponent) is outside -10…10: no scale")
                return nil
            }
            return exponent == 0 ? nil : pow(10, Double(exponent))
        }

        /// Lastset's type for a SunSpec type, and the register's own "not set" value where SunSpec's differs from the
        /// page's `unsetStyle: "sunspec"` (accumulators: 0; strings: zero bytes).
        static func type(_ type: String, size: Int) -> (RegisterType, RegisterValue?)? {
            switch (type, size) {
            case ("uint16", 1), ("enum16", 1), ("bitfield16", 1), ("count", 1): return (.u16, nil)
            case ("acc16", 1): return (.u16, .unsigned(0))
            case ("int16", 1), ("sunssf", 1): return (.s16, nil)
            case ("uint32", 2), ("enum32", 2), ("bitfield32", 2): return (.u32, nil)
            case ("acc32", 2): return (.u32, .unsigned(0))
            case ("int32", 2): return (.s32, nil)
            case ("uint64", 4): return (.u64, nil)
            case ("acc64", 4): return (.u64, .unsigned(0))
            case ("int64", 4): return (.s64, nil)
            case ("float32", 2): return (.f32, nil)
            case ("float64", 4): return (.f64, nil)
            case ("string", _): return (.string(size * 2), .bytes([UInt8](repeating: 0, count: size * 2)))
            case ("ipaddr", 2), ("ipv6addr", 8), ("eui48", 4): return (.raw(size * 2), nil)
            default: return nil
            }
        }
    }
}

extension JSONValue {
    /// The string, when this is one.
    fileprivate var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The items, when this is an array.
    fileprivate var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }
}
