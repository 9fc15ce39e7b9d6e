/// Finds where JSON5 text stops being valid, since Foundation's decoder does not say.
///
/// A small recursive scanner that accepts what JSON5 accepts (comments, trailing commas, unquoted
/// keys, single-quoted strings, hex, leading or trailing decimal points, ±Infinity, NaN) and stops
/// at the first thing it does not. It only locates errors; parsing stays Foundation's.
struct JSON5SyntaxLocator {
    /// Where and why the text is invalid.
    struct Failure: Equatable {
        var line: Int
        var column: Int
        var message: String
    }

    private let chars: [Unicode.Scalar]
    private var i = 0
    private var depth = 0

    private init(_ text: String) { chars = Array(text.unicodeScalars) }

    /// The first syntax error in `text`, or nil when the scanner accepts it.
    static func locate(_ text: String) -> Failure? {
        var scanner = JSON5SyntaxLocator(text)
        if scanner.peek() == "\u{FEFF}" { scanner.i += 1 }
        do throws(Failure) {
            try scanner.skipSpace()
            try scanner.value()
            try scanner.skipSpace()
            if scanner.i < scanner.chars.count { throw scanner.fail("unexpected text after the end of the value") }
            return nil
        } catch {
            return error
        }
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        i + offset < chars.count ? chars[i + offset] : nil
    }

    private func fail(_ message: String) -> Failure {
        var line = 1
        var column = 1
        var k = 0
        while k < i && k < chars.count {
            if chars[k] == "\n" || (chars[k] == "\r" && (k + 1 >= chars.count || chars[k + 1] != "\n")) {
                line += 1
                column = 1
            } else if chars[k] != "\r" {
                column += 1
            }
            k += 1
        }
        return Failure(line: line, column: column, message: message)
    }

    private func describeHere() -> String {
        guard let c = peek() else { return "end of input" }
        return "'\(c.escaped(asASCII: false))'"
    }

    private mutating func skipSpace() throws(Failure) {
        while let c = peek() {
            if c == "/" && peek(1) == "/" {
                while let d = peek(), d != "\n", d != "\r" { i += 1 }
            } else if c == "/" && peek(1) == "*" {
                let start = i
                i += 2
                while i < chars.count && !(chars[i] == "*" && peek(1) == "/") { i += 1 }
                guard i < chars.count else {
                    i = start
                    throw fail("unclosed /* comment")
                }
                i += 2
            } else if c.properties.isWhitespace || c == "\u{FEFF}" {
                i += 1
            } else {
                return
            }
        }
    }

    private mutating func value() throws(Failure) {
        guard let c = peek() else { throw fail("expected a value, found end of input") }
        switch c {
        case "{": try object()
        case "[": try array()
        case "\"", "'": try string()
        default:
            if c == "-" || c == "+" || c == "." || ("0"..."9").contains(c) || c == "I" || c == "N" {
                try number()
            } else if word("true") || word("false") || word("null") {
                return
            } else {
                throw fail("expected a value, found \(describeHere())")
            }
        }
    }

    private mutating func word(_ w: String) -> Bool {
        let scalars = Array(w.unicodeScalars)
        guard i + scalars.count <= chars.count, Array(chars[i..<i + scalars.count]) == scalars else { return false }
        if let after = peek(scalars.count), isIdentifierPart(after) { return false }
        i += scalars.count
        return true
    }

    private mutating func nest() throws(Failure) {
        depth += 1
        if depth > 512 { throw fail("nested too deeply") }
    }

    private mutating func object() throws(Failure) {
        try nest()
        i += 1
        try skipSpace()
        while peek() != "}" {
            guard let c = peek() else { throw fail("unclosed object: expected '}'") }
            if c == "\"" || c == "'" {
                try string()
            } else if isIdentifierStart(c) {
                while let d = peek(), isIdentifierPart(d) { i += 1 }
            } else {
                throw fail("expected a key or '}', found \(describeHere())")
            }
            try skipSpace()
            guard peek() == ":" else { throw fail("expected ':' after the key, found \(describeHere())") }
            i += 1
            try skipSpace()
            try value()
            try skipSpace()
            if peek() == "," {
                i += 1
                try skipSpace()
            } else if peek() == nil {
                throw fail("unclosed object: expected '}'")
            } else if peek() != "}" {
                throw fail("expected ',' or '}', found \(describeHere())")
            }
        }
        i += 1
        depth -= 1
    }

    private mutating func array() throws(Failure) {
        try nest()
        i += 1
        try skipSpace()
        while peek() != "]" {
            guard peek() != nil else { throw fail("unclosed array: expected ']'") }
            try value()
            try skipSpace()
            if peek() == "," {
                i += 1
                try skipSpace()
            } else if peek() == nil {
                throw fail("unclosed array: expected ']'")
            } else if peek() != "]" {
                throw fail("expected ',' or ']', found \(describeHere())")
            }
        }
        i += 1
        depth -= 1
    }

    private mutating func string() throws(Failure) {
        let quote = chars[i]
        let start = i
        i += 1
        while let c = peek() {
            if c == quote {
                i += 1
                return
            }
            if c == "\\" {
                i += 2
                continue
            }
            if c == "\n" || c == "\r" { throw fail("line break inside a string (escape it or close the string)") }
            i += 1
        }
        i = start
        throw fail("unclosed string")
    }

    private mutating func number() throws(Failure) {
        if peek() == "+" || peek() == "-" { i += 1 }
        if word("Infinity") || word("NaN") { return }
        if peek() == "0", peek(1) == "x" || peek(1) == "X" {
            i += 2
            let start = i
            while let c = peek(), c.properties.isASCIIHexDigit { i += 1 }
            if i == start { throw fail("expected hex digits after 0x") }
        } else {
            var digits = 0
            while let c = peek(), ("0"..."9").contains(c) {
                i += 1
                digits += 1
            }
            if peek() == "." {
                i += 1
                while let c = peek(), ("0"..."9").contains(c) {
                    i += 1
                    digits += 1
                }
            }
            if digits == 0 { throw fail("expected a number, found \(describeHere())") }
            if peek() == "e" || peek() == "E" {
                i += 1
                if peek() == "+" || peek() == "-" { i += 1 }
                let start = i
                while let c = peek(), ("0"..."9").contains(c) { i += 1 }
                if i == start { throw fail("expected exponent digits") }
            }
        }
        if let c = peek(), isIdentifierPart(c) { throw fail("unexpected \(describeHere()) in a number") }
    }

    private func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        c == "$" || c == "_" || c == "\\" || c.properties.isAlphabetic
    }

    private func isIdentifierPart(_ c: Unicode.Scalar) -> Bool {
        isIdentifierStart(c) || ("0"..."9").contains(c) || c.properties.numericType != nil
    }
}

extension JSON5SyntaxLocator.Failure: Error {}
