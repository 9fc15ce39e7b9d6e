import Foundation

/// The XML plist form (`<plist version="1.0">…</plist>`): a small recursive-descent parser over bytes
/// that knows only the plist elements, with bounded depth and element count. A keyed archive's
/// references (`<dict><key>CF$UID</key><integer>N</integer></dict>`) become `.uid(N)`.
struct XMLPropertyListParser {
    private let b: [UInt8]
    private let limits: PropertyListReader.Limits
    private var i = 0
    private var elements = 0

    init(_ bytes: [UInt8], limits: PropertyListReader.Limits) {
        b = bytes
        self.limits = limits
    }

    /// The whole document: prolog, `<plist>`, one value, `</plist>`.
    mutating func document() throws(PropertyListError) -> PropertyList {
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        try skipMisc()
        guard let open = try tag(), open.name == "plist", !open.closing else {
            throw fail("expected <plist>")
        }
        let value: PropertyList
        if open.empty {
            throw fail("<plist/> holds no value")
        }
        try skipMisc()
        guard let first = try tag(), !first.closing else { throw fail("<plist> holds no value") }
        value = try self.value(first, depth: 0)
        try skipMisc()
        guard let close = try tag(), close.closing, close.name == "plist" else { throw fail("expected </plist> after the value") }
        try skipMisc()
        guard i == b.count else { throw fail("text after </plist>") }
        return value
    }

    private struct Tag {
        var name: String
        var closing: Bool
        var empty: Bool
    }

    private func fail(_ message: String) -> PropertyListError {
        // Line numbers are what a person editing the XML needs.
        let line = 1 + b[..<Swift.min(i, b.count)].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        return PropertyListError("XML plist, line \(line): \(message)")
    }

    private func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    private mutating func skipSpace() { while i < b.count && isSpace(b[i]) { i += 1 } }

    private func at(_ s: String) -> Bool { b[i...].starts(with: s.utf8) }

    /// Skips whitespace, `<?…?>`, `<!DOCTYPE …>` and comments.
    private mutating func skipMisc() throws(PropertyListError) {
        while true {
            skipSpace()
            if at("<?") {
                try skip(past: "?>")
            } else if at("<!--") {
                try skip(past: "-->")
            } else if at("<!DOCTYPE") {
                try skip(past: ">")
            } else {
                return
            }
        }
    }

    private mutating func skip(past end: String) throws(PropertyListError) {
        let e = Array(end.utf8)
        var j = i
        while j + e.count <= b.count {
            if b[j..<j + e.count].elementsEqual(e) {
                i = j + e.count
                return
            }
            j += 1
        }
        throw fail("unterminated markup (no \"\(end)\")")
    }

    /// The next tag, or nil at the end of input; text before it is an error.
    private mutating func tag() throws(PropertyListError) -> Tag? {
        skipSpace()
        guard i < b.count else { return nil }
        guard b[i] == UInt8(ascii: "<") else { throw fail("unexpected text") }
        i += 1
        var closing = false
        if i < b.count && b[i] == UInt8(ascii: "/") {
            closing = true
            i += 1
        }
        let nameStart = i
        while i < b.count, b[i] != UInt8(ascii: ">"), b[i] != UInt8(ascii: "/"), !isSpace(b[i]) { i += 1 }
        let name = String(decoding: b[nameStart..<i], as: UTF8.self)
        // Attributes (only <plist version="1.0"> has any) are skipped, respecting quotes.
        var quote: UInt8?
        while i < b.count {
            let c = b[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                quote = c
            } else if c == UInt8(ascii: ">") {
                break
            }
            i += 1
        }
        guard i < b.count else { throw fail("unterminated tag <\(name)") }
        let empty = i > nameStart && b[i - 1] == UInt8(ascii: "/")
        i += 1
        guard !name.isEmpty else { throw fail("empty tag name") }
        return Tag(name: name, closing: closing, empty: empty)
    }

    /// Character data up to the next tag (entities and CDATA decoded, comments skipped).
    private mutating func text() throws(PropertyListError) -> String {
        var out: [UInt8] = []
        while i < b.count {
            if at("<![CDATA[") {
                i += 9
                let start = i
                try skip(past: "]]>")
                out += b[start..<i - 3]
            } else if at("<!--") {
                try skip(past: "-->")
            } else if b[i] == UInt8(ascii: "<") {
                break
            } else if b[i] == UInt8(ascii: "&") {
                guard let semi = b[i...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else { throw fail("unterminated entity") }
                let name = String(decoding: b[(i + 1)..<semi], as: UTF8.self)
                switch name {
                case "amp": out.append(UInt8(ascii: "&"))
                case "lt": out.append(UInt8(ascii: "<"))
                case "gt": out.append(UInt8(ascii: ">"))
                case "quot": out.append(UInt8(ascii: "\""))
                case "apos": out.append(UInt8(ascii: "'"))
                default:
                    var code: UInt32?
                    if name.hasPrefix("#x") || name.hasPrefix("#X") {
                        code = UInt32(name.dropFirst(2), radix: 16)
                    } else if name.hasPrefix("#") {
                        code = UInt32(name.dropFirst())
                    }
                    guard let c = code, let scalar = Unicode.Scalar(c) else { throw fail("unknown entity &\(name);") }
                    out += Array(String(Character(scalar)).utf8)
                }
                i = semi + 1
            } else {
                out.append(b[i])
                i += 1
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("text is not UTF-8") }
        return s
    }

    /// The text content of a simple element and its closing tag.
    private mutating func content(of open: Tag) throws(PropertyListError) -> String {
        if open.empty { return "" }
        let s = try text()
        guard let close = try tag(), close.closing, close.name == open.name else {
            throw fail("<\(open.name)> is not closed by </\(open.name)>")
        }
        return s
    }

    private mutating func value(_ open: Tag, depth: Int) throws(PropertyListError) -> PropertyList {
        elements += 1
        guard elements <= limits.maxObjects else { throw fail("more than \(limits.maxObjects) elements") }
        guard depth <= limits.maxDepth else { throw fail("nested deeper than \(limits.maxDepth) levels") }
        guard !open.closing else { throw fail("unexpected </\(open.name)>") }
        switch open.name {
        case "string":
            return .string(try content(of: open))
        case "integer":
            let t = try content(of: open).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let v = Self.integer(t) else { throw fail("<integer> \"\(t.prefix(40))\" is not a 64-bit integer") }
            return .integer(v)
        case "real":
            let t = try content(of: open).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let v = Double(t) else { throw fail("<real> \"\(t.prefix(40))\" is not a number") }
            return .real(v)
        case "true", "false":
            _ = try content(of: open)
            return .bool(open.name == "true")
        case "date":
            let t = try content(of: open).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let d = TimeText.parseISO8601(t) else { throw fail("<date> \"\(t.prefix(40))\" is not an ISO 8601 date") }
            return .date(d.timeIntervalSinceReferenceDate)
        case "data":
            let t = try content(of: open).filter { !$0.isWhitespace }
            guard let d = Data(base64Encoded: t) else { throw fail("<data> is not base64") }
            return .data([UInt8](d))
        case "array":
            var items: [PropertyList] = []
            if open.empty { return .array(items) }
            while true {
                try skipComments()
                guard let t = try tag() else { throw fail("<array> is not closed") }
                if t.closing {
                    guard t.name == "array" else { throw fail("</\(t.name)> inside <array>") }
                    return .array(items)
                }
                items.append(try value(t, depth: depth + 1))
            }
        case "dict":
            var dict: [String: PropertyList] = [:]
            if open.empty { return .dictionary(dict) }
            while true {
                try skipComments()
                guard let k = try tag() else { throw fail("<dict> is not closed") }
                if k.closing {
                    guard k.name == "dict" else { throw fail("</\(k.name)> inside <dict>") }
                    break
                }
                guard k.name == "key" else { throw fail("<\(k.name)> where a <key> was expected in <dict>") }
                let key = try content(of: k)
                try skipComments()
                guard let v = try tag(), !v.closing else { throw fail("<key>\(key.prefix(40))</key> has no value") }
                guard dict[key] == nil else { throw fail("<dict> has the key \"\(key.prefix(40))\" twice") }
                dict[key] = try value(v, depth: depth + 1)
            }
            if dict.count == 1, case .integer(let uid)? = dict["CF$UID"] {
                guard uid >= 0 else { throw fail("CF$UID \(uid) is negative") }
                return .uid(UInt64(uid))
            }
            return .dictionary(dict)
        default:
            throw fail("unknown element <\(open.name)>")
        }
    }

    private mutating func skipComments() throws(PropertyListError) {
        while true {
            skipSpace()
            guard at("<!--") else { return }
            try skip(past: "-->")
        }
    }

    /// Decimal or `0x` hex, with an optional sign, in Int64.
    private static func integer(_ t: String) -> Int64? {
        var s = Substring(t)
        var negative = false
        if s.hasPrefix("-") {
            negative = true
            s = s.dropFirst()
        } else if s.hasPrefix("+") {
            s = s.dropFirst()
        }
        let magnitude: UInt64?
        if s.hasPrefix("0x") || s.hasPrefix("0X") {
            magnitude = UInt64(s.dropFirst(2), radix: 16)
        } else {
            magnitude = UInt64(s)
        }
        guard let m = magnitude else { return nil }
        if negative { return m <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- m) : nil }
        return m <= UInt64(Int64.max) ? Int64(m) : nil
    }
}
