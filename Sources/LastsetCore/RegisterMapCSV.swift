import Foundation

/// One problem in a vendor CSV: the line, the column, the bad value and what is wrong.
public struct CSVProblem: Hashable, Sendable, CustomStringConvertible {
    /// 1-based line where the row starts (the header is line 1); 0 for problems with the arguments.
    public var line: Int
    /// The column's canonical name (`address`, `type`, …), or the header text for an unknown column.
    public var column: String
    /// The bad value as written, quoted; empty when it is missing.
    public var value: String
    /// What is wrong.
    public var message: String

    /// A problem from its parts.
    public init(line: Int, column: String, value: String, message: String) {
        self.line = line
        self.column = column
        self.value = value
        self.message = message
    }

    /// `line 4, column type: unknown register type (got "uint")`.
    public var description: String {
        let place = "line \(line), column \(column)"
        return value.isEmpty ? "\(place): \(message)" : "\(place): \(message) (got \(value))"
    }
}

/// Every problem found in a vendor CSV.
public struct CSVImportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The problems, in line order.
    public var problems: [CSVProblem]
    /// Errors from a list of problems.
    public init(problems: [CSVProblem]) { self.problems = problems }
    /// One problem per line.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// Imports a page's register map from a vendor CSV and renders pages as JSON for a config.
///
/// The columns are documented in `docs/CSV-IMPORT.md`.
public enum RegisterMapCSV {
    /// The columns understood, in their documented order.
    public static let columns = [
        "address", "name", "type", "registerId", "access", "min", "max", "enum", "unit", "scale", "clone",
        "wordOrder", "byteOrder", "unset",
    ]
    /// Columns that must be present.
    public static let requiredColumns = ["address", "name", "type"]
    /// Columns that are accepted and ignored (vendors' remarks).
    public static let ignoredColumns = ["description", "comment", "comments", "notes", "remark", "remarks"]

    /// Builds a page from CSV text with a header row; reports every problem with line, column and value.
    public static func page(fromCSV text: String, pageId: String, title: String?) throws(CSVImportError) -> PageDefinition {
        var problems: [CSVProblem] = []
        func add(_ line: Int, _ column: String, _ value: String?, _ message: String) {
            problems.append(CSVProblem(line: line, column: column, value: value.map(JSONValue.quote) ?? "", message: message))
        }
        if !SafeName.isValid(pageId) {
            add(
                0, "pageId", pageId,
                "page id must match [A-Za-z0-9][A-Za-z0-9._-]* and be at most \(SafeName.maxLength) characters")
        }
        let rows = parse(text)
        guard let header = rows.first else {
            throw CSVImportError(problems: problems + [CSVProblem(line: 1, column: "", value: "", message: "no header row")])
        }
        // Header: canonical names, case, spaces, '_' and '-' ignored.
        var index: [String: Int] = [:]
        let canonical = Dictionary(uniqueKeysWithValues: columns.map { (normalize($0), $0) })
        let ignored = Set(ignoredColumns.map(normalize))
        for (i, raw) in header.fields.enumerated() {
            let key = normalize(raw)
            if let name = canonical[key] {
                if index[name] != nil {
                    add(header.line, name, raw, "column appears twice")
                } else {
                    index[name] = i
                }
            } else if !ignored.contains(key) && !key.isEmpty {
                add(header.line, raw, raw, "unknown column; known columns: " + columns.joined(separator: ", "))
            }
        }
        for name in requiredColumns where index[name] == nil {
            add(header.line, name, nil, "required column \"\(name)\" is missing")
        }
        guard problems.isEmpty else { throw CSVImportError(problems: problems) }

        var registers: [RegisterDefinition] = []
        var idRows: [(String, Int)] = []
        var spanRows: [(RegisterDefinition, Int)] = []
        for row in rows.dropFirst() {
            if row.fields.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) { continue }
            let extra = row.fields.dropFirst(header.fields.count)
            if !extra.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                add(
                    row.line, "", row.fields[header.fields.count...].joined(separator: ","),
                    "row has \(row.fields.count) fields, the header has \(header.fields.count)")
                continue
            }
            func cell(_ name: String) -> String? {
                guard let i = index[name], i < row.fields.count else { return nil }
                let v = row.fields[i].trimmingCharacters(in: .whitespaces)
                return v.isEmpty ? nil : v
            }
            let before = problems.count
            let line = row.line

            var address: Int?
            if let a = cell("address") {
                address = parseInteger(a).flatMap { Int(exactly: $0) }
                if address == nil { add(line, "address", a, "not an address; write decimal (1536) or hex (0x600)") }
            } else {
                add(line, "address", nil, "address is empty")
            }
            let name = cell("name")
            if name == nil { add(line, "name", nil, "name is empty") }
            var type: RegisterType?
            if let t = cell("type") {
                type = RegisterType(parsing: t.lowercased())
                if type == nil {
                    add(
                        line, "type", t,
                        "unknown register type; expected u16, s16, u32, s32, u64, s64, f32, f64, string(n) or raw(n)")
                }
            } else {
                add(line, "type", nil, "type is empty")
            }
            var registerId = cell("registerId")
            if registerId == nil, let name {
                let slug = slugify(name)
                if slug.isEmpty {
                    add(line, "name", name, "cannot derive a registerId from this name; fill the registerId column")
                } else {
                    registerId = "\(pageId).\(slug)"
                }
            }
            var access: Access?
            if let a = cell("access") {
                switch a.lowercased() {
                case "rw", "r/w", "w": access = .rw
                case "ro", "r", "r/o": access = .ro
                default: add(line, "access", a, "access must be rw or ro")
                }
            }
            func number(_ column: String) -> Double? {
                guard let text = cell(column) else { return nil }
                if let n = parseNumber(text) { return n }
                add(line, column, text, "not a number")
                return nil
            }
            let min = number("min")
            let max = number("max")
            let scale = number("scale")
            var enumValues: [Double]?
            if let e = cell("enum") {
                enumValues = []
                for part in e.split(separator: "|", omittingEmptySubsequences: false) {
                    let p = part.trimmingCharacters(in: .whitespaces)
                    if let n = parseNumber(p) {
                        enumValues?.append(n)
                    } else {
                        add(line, "enum", p, "enum values are numbers separated by |")
                    }
                }
            }
            var clone: Bool?
            if let c = cell("clone") {
                switch c.lowercased() {
                case "true", "yes", "y", "1": clone = true
                case "false", "no", "n", "0": clone = false
                default: add(line, "clone", c, "clone must be true or false")
                }
            }
            func order(_ column: String) -> String? {
                guard let o = cell(column) else { return nil }
                guard ["big", "little"].contains(o.lowercased()) else {
                    add(line, column, o, "\(column) must be big or little")
                    return nil
                }
                return o.lowercased()
            }
            let wordOrder = order("wordOrder").flatMap(WordOrder.init(rawValue:))
            let byteOrder = order("byteOrder").flatMap(ByteOrder.init(rawValue:))
            var unset: RegisterValue?
            if let u = cell("unset"), let type {
                unset = unsetValue(u, type)
                if unset == nil {
                    add(line, "unset", u, type.isNumeric ? "unset must be a number" : "unset of \(type) must be hex bytes")
                }
            }
            // Duplicates and overlaps are checked over every row that names them, even a row with other
            // problems: every problem in one run.
            if let registerId { idRows.append((registerId, line)) }
            if let address, let type, RegisterRules.addressProblems(address: address, type: type).isEmpty {
                spanRows.append(
                    (RegisterDefinition(registerId: registerId ?? "line \(line)", address: address, type: type), line))
            }
            guard problems.count == before, let address, let type, let registerId else { continue }
            let r = RegisterDefinition(
                registerId: registerId, name: name, address: address, type: type, wordOrder: wordOrder,
                byteOrder: byteOrder, unset: unset, min: min, max: max, enum: enumValues, scale: scale,
                unit: cell("unit"), access: access, clone: clone)
            let ruleProblems = RegisterRules.problems(of: r)
            for p in ruleProblems {
                let column = p.key.hasPrefix("enum[") ? "enum" : p.key
                problems.append(CSVProblem(line: line, column: column, value: p.value.abbreviated(), message: p.message))
            }
            if ruleProblems.isEmpty { registers.append(r) }
        }

        // Duplicates and overlaps, reported on the later line.
        var seen: [String: Int] = [:]
        for (id, line) in idRows {
            if let first = seen[id] {
                add(line, "registerId", id, "duplicate registerId (first on line \(first))")
            } else {
                seen[id] = line
            }
        }
        let byAddress = spanRows.sorted { $0.0.address != $1.0.address ? $0.0.address < $1.0.address : $0.1 < $1.1 }
        var furthest: (RegisterDefinition, Int)?
        for (r, line) in byAddress {
            if let (f, fLine) = furthest, r.address < f.endAddress {
                let (first, second, secondLine) = fLine < line ? (f, r, line) : (r, f, fLine)
                problems.append(
                    CSVProblem(
                        line: secondLine, column: "address", value: String(second.address),
                        message:
                            "\"\(second.registerId)\" (\(second.address)...\(second.endAddress - 1)) overlaps \"\(first.registerId)\" (\(first.address)...\(first.endAddress - 1)) on line \(Swift.min(fLine, line))"
                    ))
            }
            if furthest == nil || r.endAddress > furthest!.0.endAddress { furthest = (r, line) }
        }
        if registers.isEmpty && problems.isEmpty {
            add(header.line, "", nil, "no register rows")
        }
        guard problems.isEmpty else {
            throw CSVImportError(problems: problems.sorted { $0.line < $1.line })
        }
        return PageDefinition(id: pageId, title: title, registers: registers)
    }

    /// The page as pretty JSON with sorted keys, ready to paste into a config's `pages` array.
    public static func json(for page: PageDefinition) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Every field of a page encodes; a failure would be a programming error.
        guard let data = try? encoder.encode(page) else { preconditionFailure("PageDefinition did not encode") }
        return String(decoding: data, as: UTF8.self)
    }

    /// Splits CSV text into rows of fields (RFC 4180 quoting; `,` or, when the header has none, `;`).
    static func parse(_ text: String) -> [(line: Int, fields: [String])] {
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        let headerEnd = scalars.firstIndex { $0 == "\n" || $0 == "\r" } ?? scalars.endIndex
        let delimiter: Unicode.Scalar =
            !scalars[..<headerEnd].contains(",") && scalars[..<headerEnd].contains(";") ? ";" : ","
        var rows: [(line: Int, fields: [String])] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        var rowLine = 1
        var quoted = false
        var i = 0
        func endField() {
            fields.append(String(field))
            field = String.UnicodeScalarView()
        }
        func endRow() {
            endField()
            rows.append((rowLine, fields))
            fields = []
        }
        while i < scalars.count {
            let c = scalars[i]
            if quoted {
                if c == "\"" {
                    if i + 1 < scalars.count && scalars[i + 1] == "\"" {
                        field.append("\"")
                        i += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if c == "\n" { line += 1 }
                    field.append(c)
                }
            } else if c == "\"" && String(field).trimmingCharacters(in: .whitespaces).isEmpty {
                field = String.UnicodeScalarView()
                quoted = true
            } else if c == delimiter {
                endField()
            } else if c == "\r" || c == "\n" {
                if c == "\r" && i + 1 < scalars.count && scalars[i + 1] == "\n" { i += 1 }
                endRow()
                line += 1
                rowLine = line
            } else {
                field.append(c)
            }
            i += 1
        }
        if !field.isEmpty || !fields.isEmpty || quoted { endRow() }
        return rows
    }

    private static func normalize(_ header: String) -> String {
        header.lowercased().filter { !" _-".contains($0) }
    }

    /// `Energy limit` → `energy_limit`: ASCII letters and digits, other runs become one `_`.
    static func slugify(_ name: String) -> String {
        var out = ""
        for c in name.lowercased().unicodeScalars {
            if (c >= "a" && c <= "z") || (c >= "0" && c <= "9") {
                out.unicodeScalars.append(c)
            } else if !out.isEmpty && !out.hasSuffix("_") {
                out += "_"
            }
        }
        while out.hasSuffix("_") { out.removeLast() }
        return out
    }

    /// Decimal or `0x` hex, with an optional sign.
    private static func parseInteger(_ text: String) -> Int64? {
        var t = Substring(text)
        var negative = false
        if t.hasPrefix("-") {
            negative = true
            t = t.dropFirst()
        } else if t.hasPrefix("+") {
            t = t.dropFirst()
        }
        let magnitude: UInt64?
        if t.lowercased().hasPrefix("0x") {
            magnitude = UInt64(t.dropFirst(2), radix: 16)
        } else {
            magnitude = t.allSatisfy(\.isASCII) ? UInt64(t) : nil
        }
        guard let m = magnitude else { return nil }
        if negative { return m <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- m) : nil }
        return m <= UInt64(Int64.max) ? Int64(m) : nil
    }

    private static func parseNumber(_ text: String) -> Double? {
        if let i = parseInteger(text) { return Double(i) }
        guard let d = Double(text), d.isFinite else { return nil }
        return d
    }

    private static func unsetValue(_ text: String, _ type: RegisterType) -> RegisterValue? {
        switch type {
        case .string:
            return .text(text)
        case .raw:
            let hex = text.lowercased().hasPrefix("0x") ? String(text.dropFirst(2)) : text
            return [UInt8](hexString: hex).map(RegisterValue.bytes)
        case .f32, .f64:
            return parseNumber(text).map(RegisterValue.float)
        default:
            if let i = parseInteger(text) { return i >= 0 ? .unsigned(UInt64(i)) : .signed(i) }
            let t = text.lowercased().hasPrefix("0x") ? String(text.dropFirst(2)) : nil
            if let t, let u = UInt64(t, radix: 16) { return .unsigned(u) }
            if let u = UInt64(text) { return .unsigned(u) }
            return nil
        }
    }
}
