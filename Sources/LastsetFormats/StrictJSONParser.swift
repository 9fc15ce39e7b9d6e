/// A JSON / JSON5 parser that cannot trap and hides nothing.
///
/// Foundation's parsers keep one of two duplicated keys without a word (`{"dryRun": false, "dryRun":
/// true}`) and its JSON5 scanner traps on invalid UTF-8. This one validates UTF-8 first, bounds depth
/// and size, reports line and column (1-based, in characters), and reports every duplicated key. JSON5
/// mode accepts comments, trailing commas, unquoted keys, single-quoted strings, hex, leading or
/// trailing decimal points, `+`, ±Infinity and NaN; JSON mode accepts RFC 8259 only.
public struct StrictJSONParser {
    /// The two grammars.
    public enum Syntax: Sendable {
        /// RFC 8259 (API request bodies).
        case json
        /// JSON5 (the config).
        case json5
    }

    /// Bounds on what is parsed.
    public struct Limits: Sendable {
        /// Deepest nesting of arrays and objects.
        public var maxDepth: Int
        /// Largest input in bytes.
        public var maxBytes: Int
        /// Limits from their parts.
        public init(maxDepth: Int = 64, maxBytes: Int = 64 << 20) {
            self.maxDepth = maxDepth
            self.maxBytes = maxBytes
        }
    }

    /// A parsed document and every key that appeared twice in one object.
    public struct Document: Sendable {
        /// The value (of duplicated keys, the first is kept).
        public var value: JSONValue
        /// Every repeated key, in text order.
        public var duplicates: [JSONSyntaxError]
    }

    private let chars: [Unicode.Scalar]
    private let syntax: Syntax
    private let limits: Limits
    private var i = 0
    private var depth = 0
    private var duplicates: [JSONSyntaxError] = []
    /// The JSON path of the value being parsed, for duplicate-key messages.
    private var path: [String] = []

    private init(_ chars: [Unicode.Scalar], _ syntax: Syntax, _ limits: Limits) {
        self.chars = chars
        self.syntax = syntax
        self.limits = limits
    }

    /// Parses `bytes`; throws on the first syntax error; a repeated key is an error too.
    public static func parse(_ bytes: [UInt8], syntax: Syntax, limits: Limits = Limits()) throws(JSONSyntaxError) -> JSONValue {
        let document = try parseDocument(bytes, syntax: syntax, limits: limits)
        if let first = document.duplicates.first { throw first }
        return document.value
    }

    /// Parses `bytes`, collecting repeated keys instead of stopping at them (so a checker can report
    /// them with every other problem); throws on the first syntax error.
    public static func parseDocument(_ bytes: [UInt8], syntax: Syntax, limits: Limits = Limits()) throws(JSONSyntaxError)
        -> Document
    {
        guard bytes.count <= limits.maxBytes else {
            throw JSONSyntaxError(line: 1, column: 1, path: "$", message: "larger than \(limits.maxBytes) bytes")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw invalidUTF8(bytes) }
        var parser = StrictJSONParser(Array(text.unicodeScalars), syntax, limits)
        if parser.peek() == "\u{FEFF}" { parser.i += 1 }
        try parser.skipSpace()
        let value = try parser.value()
        try parser.skipSpace()
        if parser.i < parser.chars.count { throw parser.fail("unexpected text after the end of the value") }
        return Document(value: value, duplicates: parser.duplicates)
    }

    /// Where the first byte that is not UTF-8 is, and which byte it is.
    private static func invalidUTF8(_ bytes: [UInt8]) -> JSONSyntaxError {
        // Find the longest valid prefix by decoding scalar by scalar.
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        var line = 1
        var column = 1
        var previousCR = false
        loop: while true {
            let before = offset
            switch decoder.decode(&iterator) {
            case .scalarValue(let s):
                offset += String(s).utf8.count
                if s == "\n" {
                    if !previousCR { line += 1 }
                    column = 1
                } else if s == "\r" {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
                previousCR = s == "\r"
            case .emptyInput:
                offset = bytes.count
                break loop
            case .error:
                offset = before
                break loop
            }
        }
        let byte = offset < bytes.count ? bytes[offset] : 0
        let hex = String(byte, radix: 16, uppercase: true)
        return JSONSyntaxError(
            line: line, column: column, path: "$",
            message: "not valid UTF-8: byte 0x\(hex.count == 1 ? "0" + hex : hex) at offset \(offset)")
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        i + offset < chars.count ? chars[i + offset] : nil
    }

    private func fail(_ message: String, at position: Int? = nil) -> JSONSyntaxError {
        let (line, column) = location(position ?? i)
        return JSONSyntaxError(line: line, column: column, path: pathText, message: message)
    }

    private func location(_ position: Int) -> (Int, Int) {
        var line = 1
        var column = 1
        var k = 0
        while k < position && k < chars.count {
            if chars[k] == "\n" || (chars[k] == "\r" && (k + 1 >= chars.count || chars[k + 1] != "\n")) {
                line += 1
                column = 1
            } else if chars[k] != "\r" {
                column += 1
            }
            k += 1
        }
        return (line, column)
    }

    /// The path as the config checker writes it: `devices[0].id` (`$` at the top).
    private var pathText: String {
        let joined = path.joined()
        if joined.isEmpty { return "$" }
        return joined.hasPrefix(".") ? String(joined.dropFirst()) : joined
    }

    private func describeHere() -> String {
        guard let c = peek() else { return "end of input" }
        return "'\(c.escaped(asASCII: false))'"
    }

    private var json5: Bool { syntax == .json5 }

    private mutating func skipSpace() throws(JSONSyntaxError) {
        while let c = peek() {
            if json5 && c == "/" && peek(1) == "/" {
                while let d = peek(), d != "\n", d != "\r", d != "\u{2028}", d != "\u{2029}" { i += 1 }
            } else if json5 && c == "/" && peek(1) == "*" {
                let start = i
                i += 2
                while i < chars.count && !(chars[i] == "*" && peek(1) == "/") { i += 1 }
                guard i < chars.count else { throw fail("unclosed /* comment", at: start) }
                i += 2
            } else if c == " " || c == "\t" || c == "\n" || c == "\r" {
                i += 1
            } else if json5 && (c.properties.isWhitespace || c == "\u{FEFF}") {
                i += 1
            } else {
                return
            }
        }
    }

    private mutating func value() throws(JSONSyntaxError) -> JSONValue {
        guard let c = peek() else { throw fail("expected a value, found end of input") }
        switch c {
        case "{": return try object()
        case "[": return try array()
        case "\"": return .string(try string())
        case "'" where json5: return .string(try string())
        default:
            if c == "-" || ("0"..."9").contains(c) || (json5 && (c == "+" || c == "." || c == "I" || c == "N")) {
                return try number()
            }
            if word("true") { return .bool(true) }
            if word("false") { return .bool(false) }
            if word("null") { return .null }
            throw fail("expected a value, found \(describeHere())")
        }
    }

    private mutating func word(_ w: String) -> Bool {
        let scalars = Array(w.unicodeScalars)
        guard i + scalars.count <= chars.count, Array(chars[i..<i + scalars.count]) == scalars else { return false }
        if let after = peek(scalars.count), isIdentifierPart(after) { return false }
        i += scalars.count
        return true
    }

    private mutating func nest() throws(JSONSyntaxError) {
        depth += 1
        if depth > limits.maxDepth { throw fail("nested deeper than \(limits.maxDepth) levels") }
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONValue {
        try nest()
        i += 1
        try skipSpace()
        var fields: [String: JSONValue] = [:]
        var firstAt: [String: Int] = [:]
        while peek() != "}" {
            guard let c = peek() else { throw fail("unclosed object: expected '}'") }
            let keyStart = i
            let key: String
            if c == "\"" || (json5 && c == "'") {
                key = try string()
            } else if json5 && isIdentifierStart(c) {
                var name = String.UnicodeScalarView()
                while let d = peek(), isIdentifierPart(d) {
                    name.append(d)
                    i += 1
                }
                key = String(name)
            } else {
                throw fail(
                    json5
                        ? "expected a key or '}', found \(describeHere())" : "expected a \"key\" or '}', found \(describeHere())")
            }
            try skipSpace()
            guard peek() == ":" else { throw fail("expected ':' after the key, found \(describeHere())") }
            i += 1
            try skipSpace()
            path.append("." + key)
            let item = try value()
            if let first = firstAt[key] {
                let (line, column) = location(first)
                var duplicate = fail("duplicate key \"\(key)\" (first at line \(line), column \(column))", at: keyStart)
                duplicate.isDuplicateKey = true
                duplicates.append(duplicate)
            } else {
                fields[key] = item
                firstAt[key] = keyStart
            }
            path.removeLast()
            try skipSpace()
            if peek() == "," {
                i += 1
                try skipSpace()
                if !json5 && peek() == "}" { throw fail("trailing ',' before '}' (not JSON)") }
            } else if peek() == nil {
                throw fail("unclosed object: expected '}'")
            } else if peek() != "}" {
                throw fail("expected ',' or '}', found \(describeHere())")
            }
        }
        i += 1
        depth -= 1
        return .object(fields)
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONValue {
        try nest()
        i += 1
        try skipSpace()
        var items: [JSONValue] = []
        while peek() != "]" {
            guard peek() != nil else { throw fail("unclosed array: expected ']'") }
            path.append("[\(items.count)]")
            items.append(try value())
            path.removeLast()
            try skipSpace()
            if peek() == "," {
                i += 1
                try skipSpace()
                if !json5 && peek() == "]" { throw fail("trailing ',' before ']' (not JSON)") }
            } else if peek() == nil {
                throw fail("unclosed array: expected ']'")
            } else if peek() != "]" {
                throw fail("expected ',' or ']', found \(describeHere())")
            }
        }
        i += 1
        depth -= 1
        return .array(items)
    }

    private mutating func hexDigits(_ count: Int) throws(JSONSyntaxError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<count {
            guard let c = peek(), let d = c.properties.isASCIIHexDigit ? UInt32(String(c), radix: 16) : nil else {
                throw fail("expected \(count) hex digits in an escape, found \(describeHere())")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        let quote = chars[i]
        let start = i
        i += 1
        var out = String.UnicodeScalarView()
        while let c = peek() {
            if c == quote {
                i += 1
                return String(out)
            }
            if c == "\\" {
                i += 1
                guard let e = peek() else { break }
                i += 1
                switch e {
                case "\"": out.append("\"")
                case "\\": out.append("\\")
                case "/": out.append("/")
                case "b": out.append("\u{08}")
                case "f": out.append("\u{0C}")
                case "n": out.append("\n")
                case "r": out.append("\r")
                case "t": out.append("\t")
                case "u":
                    let unit = try hexDigits(4)
                    if (0xD800...0xDBFF).contains(unit) {
                        guard peek() == "\\", peek(1) == "u" else { throw fail("lone UTF-16 surrogate in a \\u escape") }
                        i += 2
                        let low = try hexDigits(4)
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("lone UTF-16 surrogate in a \\u escape") }
                        out.append(Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!)
                    } else if let s = Unicode.Scalar(unit) {
                        out.append(s)
                    } else {
                        throw fail("lone UTF-16 surrogate in a \\u escape")
                    }
                case "'" where json5: out.append("'")
                case "v" where json5: out.append("\u{0B}")
                case "0" where json5:
                    if let d = peek(), ("0"..."9").contains(d) { throw fail("octal escapes are not allowed") }
                    out.append("\u{00}")
                case "x" where json5: out.append(Unicode.Scalar(UInt8(try hexDigits(2))))
                case "\n" where json5, "\u{2028}" where json5, "\u{2029}" where json5: break
                case "\r" where json5: if peek() == "\n" { i += 1 }
                default:
                    if json5 && !("1"..."9").contains(e) {
                        out.append(e)
                    } else {
                        throw fail("unknown escape '\\\(e.escaped(asASCII: false))'", at: i - 2)
                    }
                }
                continue
            }
            if c == "\n" || c == "\r" { throw fail("line break inside a string (escape it or close the string)") }
            if !json5 && c.value < 0x20 {
                throw fail("control character U+\(String(c.value, radix: 16, uppercase: true)) inside a string (escape it)")
            }
            out.append(c)
            i += 1
        }
        throw fail("unclosed string", at: start)
    }

    private mutating func number() throws(JSONSyntaxError) -> JSONValue {
        let start = i
        var negative = false
        if peek() == "+" || peek() == "-" {
            negative = peek() == "-"
            i += 1
        }
        if json5 && word("Infinity") { return .double(negative ? -.infinity : .infinity) }
        if json5 && word("NaN") { return .double(.nan) }
        if json5, peek() == "0", peek(1) == "x" || peek(1) == "X" {
            i += 2
            let digitsStart = i
            var magnitude: UInt64 = 0
            var overflow = false
            while let c = peek(), c.properties.isASCIIHexDigit {
                let (m, o) = magnitude.multipliedReportingOverflow(by: 16)
                overflow = overflow || o
                magnitude = m | UInt64(String(c), radix: 16)!
                i += 1
            }
            if i == digitsStart { throw fail("expected hex digits after 0x") }
            if let c = peek(), isIdentifierPart(c) { throw fail("unexpected \(describeHere()) in a number") }
            if overflow { throw fail("hex number does not fit 64 bits", at: start) }
            if negative {
                guard magnitude <= UInt64(Int64.max) + 1 else { throw fail("hex number does not fit 64 bits", at: start) }
                return .int(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude))
            }
            return magnitude <= UInt64(Int64.max) ? .int(Int64(magnitude)) : .uint(magnitude)
        }
        var intDigits = 0
        var fracDigits = 0
        var isFloat = false
        let intStart = i
        while let c = peek(), ("0"..."9").contains(c) {
            i += 1
            intDigits += 1
        }
        if !json5 && intDigits > 1 && chars[intStart] == "0" { throw fail("leading zeros are not allowed", at: intStart) }
        if !json5 && intDigits == 0 { throw fail("expected a number, found \(describeHere())") }
        if peek() == "." {
            isFloat = true
            i += 1
            while let c = peek(), ("0"..."9").contains(c) {
                i += 1
                fracDigits += 1
            }
            if !json5 && fracDigits == 0 { throw fail("expected digits after '.'") }
        }
        if intDigits + fracDigits == 0 { throw fail("expected a number, found \(describeHere())") }
        if peek() == "e" || peek() == "E" {
            isFloat = true
            i += 1
            if peek() == "+" || peek() == "-" { i += 1 }
            let expStart = i
            while let c = peek(), ("0"..."9").contains(c) { i += 1 }
            if i == expStart { throw fail("expected exponent digits") }
        }
        if let c = peek(), isIdentifierPart(c) { throw fail("unexpected \(describeHere()) in a number") }
        var text = String(String.UnicodeScalarView(chars[start..<i]))
        if text.hasPrefix("+") { text.removeFirst() }
        if !isFloat {
            if let v = Int64(text) { return .int(v) }
            if !negative, let v = UInt64(text) { return .uint(v) }
        }
        // Double does not take "5." or ".5" with a sign in every form; normalise.
        if text.hasSuffix(".") { text += "0" }
        if text.hasPrefix(".") { text = "0" + text } else if text.hasPrefix("-.") { text = "-0" + text.dropFirst() }
        text = text.replacingDotBeforeExponent()
        guard let d = Double(text) else { throw fail("number \(text) cannot be read", at: start) }
        return .double(d)
    }

    private func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        c == "$" || c == "_" || c.properties.isAlphabetic
    }

    private func isIdentifierPart(_ c: Unicode.Scalar) -> Bool {
        isIdentifierStart(c) || ("0"..."9").contains(c) || c.properties.numericType != nil
    }
}

extension String {
    /// "5.e3" → "5.0e3" (Double's parser wants a digit after the point).
    fileprivate func replacingDotBeforeExponent() -> String {
        guard let dot = firstIndex(of: "."), let after = index(dot, offsetBy: 1, limitedBy: endIndex), after < endIndex,
            self[after] == "e" || self[after] == "E"
        else { return self }
        var s = self
        s.insert("0", at: after)
        return s
    }
}

/// A syntax error (or a repeated key) in JSON text: where, at which JSON path, and why.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// 1-based line.
    public var line: Int
    /// 1-based column, in characters.
    public var column: Int
    /// JSON path of the value being read (`$` at the top).
    public var path: String
    /// What is wrong.
    public var message: String
    /// Whether it is a key repeated in one object (a value the strict parser refuses; the rest was well formed).
    public var isDuplicateKey: Bool
    /// An error from its parts.
    public init(line: Int, column: Int, path: String, message: String, isDuplicateKey: Bool = false) {
        self.line = line
        self.column = column
        self.path = path
        self.message = message
        self.isDuplicateKey = isDuplicateKey
    }
    /// `line L, column C: message`.
    public var description: String { "line \(line), column \(column): \(message)" }
}
