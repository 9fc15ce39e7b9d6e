import Foundation
import LastsetFormats

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
        "wordOrder", "byteOrder", "unset", "factoryDefault", "range", "length", "description",
    ]
    /// Columns that must be present.
    public static let requiredColumns = ["address", "name", "type"]
    /// Columns that are accepted and ignored (vendors' remarks).
    public static let ignoredColumns = ["comment", "comments", "notes", "note", "remark", "remarks"]
    /// The names vendors give the columns (matched like the canonical ones: case, spaces, `_`, `-`, `/`,
    /// `.` and parentheses ignored).
    public static let vendorNames: [String: String] = [
        "register": "address", "registeraddress": "address", "reg": "address", "regaddress": "address",
        "modbusaddress": "address", "registernumber": "address", "addr": "address", "holdingregister": "address",
        "parameter": "name", "parametername": "name", "datatype": "type", "format": "type", "id": "registerId",
        "rw": "access", "readwrite": "access", "default": "factoryDefault", "defaultvalue": "factoryDefault",
        "factorysetting": "factoryDefault", "valuerange": "range", "limits": "range", "units": "unit", "uom": "unit",
        "multiplier": "scale", "factor": "scale", "size": "length", "registers": "length", "words": "length",
        "numberofregisters": "length", "quantity": "length",
    ]

    /// How a list numbers its registers.
    public enum Addressing: String, Sendable, CaseIterable {
        /// Modicon notation when every address is 40001…49999 (or 400001…465536), else 0-based PDU addresses.
        case auto
        /// 0-based PDU addresses, as on the wire.
        case pdu
        /// Register numbers counted from 1 (PDU address + 1).
        case oneBased = "one-based"
        /// Modicon notation: 40001 is holding register 0 (6-digit: 400001).
        case modicon
    }

    /// An imported page and what the import assumed to get it (printed for the user to check).
    public struct Imported: Sendable, Hashable {
        /// The page.
        public var page: PageDefinition
        /// One sentence per assumption, e.g. how addresses were read; empty for a list in Lastset's own columns.
        public var assumptions: [String]
    }

    /// Builds a page from CSV text with a header row; reports every problem with line, column and value.
    public static func page(fromCSV text: String, pageId: String, title: String?) throws(CSVImportError) -> PageDefinition {
        try importPage(fromCSV: text, pageId: pageId, title: title).page
    }

    /// Builds a page from a vendor's CSV (Lastset's columns or the vendors' names for them, see
    /// docs/CSV-IMPORT.md), saying what it assumed; reports every problem with line, column and value.
    public static func importPage(fromCSV text: String, pageId: String, title: String?, addressing: Addressing = .auto)
        throws(CSVImportError) -> Imported
    {
        var problems: [CSVProblem] = []
        if !SafeName.isValid(pageId) {
            problems.append(
                CSVProblem(
                    line: 0, column: "pageId", value: JSONValue.quote(pageId),
                    message: "page id must match [A-Za-z0-9][A-Za-z0-9._-]* and be at most \(SafeName.maxLength) characters"))
        }
        let rows = parse(text)
        guard let header = rows.first else {
            throw CSVImportError(problems: problems + [CSVProblem(line: 1, column: "", value: "", message: "no header row")])
        }
        let (index, renamed) = readHeader(header, into: &problems)
        guard problems.isEmpty else { throw CSVImportError(problems: problems) }
        let dataRows = rows.dropFirst().filter { !$0.fields.allSatisfy(isBlank) }
        let (style, assumptions) = assumptions(addressing: addressing, index: index, renamed: renamed, rows: dataRows)

        var registers: [RegisterDefinition] = []
        var ids: [(id: String, line: Int)] = []
        var spans: [(register: RegisterDefinition, line: Int)] = []
        for row in dataRows {
            let read = readRow(row, columns: header.fields.count, index: index, pageId: pageId, style: style)
            problems += read.problems
            if let id = read.registerId { ids.append((id, row.line)) }
            if let span = read.span { spans.append((span, row.line)) }
            if let register = read.register { registers.append(register) }
        }
        // Duplicates and overlaps, reported on the later line.
        problems += duplicateProblems(ids) + overlapProblems(spans)
        if registers.isEmpty && problems.isEmpty {
            problems.append(CSVProblem(line: header.line, column: "", value: "", message: "no register rows"))
        }
        guard problems.isEmpty else {
            throw CSVImportError(problems: problems.sorted { $0.line < $1.line })
        }
        return Imported(page: PageDefinition(id: pageId, title: title, registers: registers), assumptions: assumptions)
    }

    /// Whether a field holds only spaces.
    private static func isBlank(_ field: String) -> Bool { field.trimmingCharacters(in: .whitespaces).isEmpty }

    /// The header's columns: canonical names or vendors' names (case, spaces and punctuation ignored), each column's
    /// position, and the vendors' names read as canonical ones (`"Register" as address`). An unknown, repeated or
    /// missing required column is a problem.
    private static func readHeader(_ header: (line: Int, fields: [String]), into problems: inout [CSVProblem])
        -> (index: [String: Int], renamed: [String])
    {
        func add(_ column: String, _ value: String?, _ message: String) {
            problems.append(
                CSVProblem(line: header.line, column: column, value: value.map(JSONValue.quote) ?? "", message: message))
        }
        var index: [String: Int] = [:]
        var canonical = Dictionary(uniqueKeysWithValues: columns.map { (normalize($0), $0) })
        for (alias, name) in vendorNames { canonical[alias] = name }
        let ignored = Set(ignoredColumns.map(normalize))
        var renamed: [String] = []
        for (i, raw) in header.fields.enumerated() {
            let key = normalize(raw)
            if let name = canonical[key] {
                if index[name] != nil {
                    add(name, raw, "column appears twice")
                } else {
                    index[name] = i
                    if key != normalize(name) { renamed.append("\"\(raw.trimmingCharacters(in: .whitespaces))\" as \(name)") }
                }
            } else if !ignored.contains(key) && !key.isEmpty {
                add(
                    raw, raw,
                    "unknown column; known columns: " + columns.joined(separator: ", ")
                        + " (and vendors' names for them: Register, Parameter, Data Type, R/W, Default, Range, Units, Multiplier, …)"
                )
            }
        }
        for name in requiredColumns where index[name] == nil {
            add(name, nil, "required column \"\(name)\" is missing")
        }
        return (index, renamed)
    }

    /// How the addresses are read (decided over the whole list: Modicon notation only when every address has it), and
    /// every assumption the import makes, for the user to check.
    private static func assumptions(
        addressing: Addressing, index: [String: Int], renamed: [String], rows: [(line: Int, fields: [String])]
    ) -> (Addressing, [String]) {
        var assumptions: [String] = []
        if !renamed.isEmpty { assumptions.append("columns read " + renamed.joined(separator: ", ")) }
        var style = addressing
        if style == .auto, let a = index["address"] {
            let values = rows.compactMap { row -> Int64? in
                guard a < row.fields.count else { return nil }
                let t = row.fields[a].trimmingCharacters(in: .whitespaces)
                return t.lowercased().hasPrefix("0x") ? -1 : parseInteger(t)
            }
            let five = values.allSatisfy { (40001...49999).contains($0) }
            let six = values.allSatisfy { (400001...465536).contains($0) }
            style = !values.isEmpty && (five || six) ? .modicon : .pdu
            if style == .modicon {
                assumptions.append(
                    "addresses read as Modicon holding-register numbers (every one is 4xxxx): \(values.min()!) is PDU address \(values.min()! - (six ? 400001 : 40001)); give --addressing pdu if they are not"
                )
            } else if !renamed.isEmpty {
                assumptions.append(
                    "addresses read as 0-based PDU addresses; give --addressing one-based if the list counts from 1")
            }
        } else if style == .oneBased {
            assumptions.append("addresses read as register numbers counted from 1 (PDU address = number − 1)")
        } else if style == .modicon {
            assumptions.append("addresses read as Modicon holding-register numbers (40001 = PDU address 0)")
        }
        if index["factoryDefault"] != nil {
            assumptions.append(
                "the Default column is kept as each register's factoryDefault (documentation; not the \"not set\" value)")
        }
        if index["range"] != nil || index["factoryDefault"] != nil {
            assumptions.append("Range and Default are raw register values (before Scale)")
        }
        return (style, assumptions)
    }

    /// What one data row gave.
    private struct RowRead {
        /// Its problems, in column order.
        var problems: [CSVProblem] = []
        /// The registerId it names (for the duplicate check, made even when the row has other problems).
        var registerId: String?
        /// Its address span (for the overlap check, likewise).
        var span: RegisterDefinition?
        /// The register, when the row has no problem.
        var register: RegisterDefinition?
    }

    /// Reads one data row (`columns`: the header's field count) into a register.
    private static func readRow(
        _ row: (line: Int, fields: [String]), columns: Int, index: [String: Int], pageId: String, style: Addressing
    ) -> RowRead {
        if !row.fields.dropFirst(columns).allSatisfy(isBlank) {
            let extra = row.fields[columns...].joined(separator: ",")
            let message = "row has \(row.fields.count) fields, the header has \(columns)"
            return RowRead(problems: [CSVProblem(line: row.line, column: "", value: JSONValue.quote(extra), message: message)])
        }
        var cells = CSVRowReader(line: row.line, fields: row.fields, index: index)
        let address = cells.address(style)
        let name = cells.cell("name")
        if name == nil { cells.add("name", nil, "name is empty") }
        let type = cells.type()
        let registerId = cells.registerId(name: name, pageId: pageId)
        let access = cells.access()
        let bounds = cells.bounds()
        let scale = cells.scale()
        let enumValues = cells.enumValues()
        let clone = cells.clone()
        let wordOrder = cells.order("wordOrder").flatMap(WordOrder.init(rawValue:))
        let byteOrder = cells.order("byteOrder").flatMap(ByteOrder.init(rawValue:))
        let unset = cells.unset(type)
        let factoryDefault = cells.factoryDefault(type)
        var read = RowRead(problems: cells.problems, registerId: registerId)
        if let address, let type, RegisterRules.addressProblems(address: address, type: type).isEmpty {
            read.span = RegisterDefinition(registerId: registerId ?? "line \(row.line)", address: address, type: type)
        }
        guard read.problems.isEmpty, let address, let type, let registerId else { return read }
        let register = RegisterDefinition(
            registerId: registerId, name: name, address: address, type: type, wordOrder: wordOrder,
            byteOrder: byteOrder, unset: unset, min: bounds.min, max: bounds.max, enum: enumValues, scale: scale,
            unit: cells.cell("unit"), access: access, clone: clone, factoryDefault: factoryDefault,
            description: cells.cell("description"))
        let ruleProblems = RegisterRules.problems(of: register)
        for p in ruleProblems {
            let column = p.key.hasPrefix("enum[") ? "enum" : p.key
            read.problems.append(CSVProblem(line: row.line, column: column, value: p.value.abbreviated(), message: p.message))
        }
        if ruleProblems.isEmpty { read.register = register }
        return read
    }

    /// A registerId named a second time, on the later line.
    private static func duplicateProblems(_ ids: [(id: String, line: Int)]) -> [CSVProblem] {
        var seen: [String: Int] = [:]
        var problems: [CSVProblem] = []
        for (id, line) in ids {
            if let first = seen[id] {
                problems.append(
                    CSVProblem(
                        line: line, column: "registerId", value: JSONValue.quote(id),
                        message: "duplicate registerId (first on line \(first))"))
            } else {
                seen[id] = line
            }
        }
        return problems
    }

    /// Registers whose address spans overlap, on the later line.
    private static func overlapProblems(_ spans: [(register: RegisterDefinition, line: Int)]) -> [CSVProblem] {
        let byAddress = spans.sorted {
            $0.register.address != $1.register.address ? $0.register.address < $1.register.address : $0.line < $1.line
        }
        var problems: [CSVProblem] = []
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
        return problems
    }

    /// A type as vendors write it (`UINT16`, `INT32`, `FLOAT32`, `STRING` with a length, …) or as Lastset does.
    static func vendorType(_ text: String, registers: Int?) -> Result<RegisterType, VendorTypeError> {
        let t = text.lowercased().filter { !$0.isWhitespace && $0 != "_" && $0 != "-" }
        if let own = RegisterType(parsing: t) { return .success(own) }
        let names: [String: RegisterType] = [
            "uint16": .u16, "uint": .u16, "word": .u16, "ushort": .u16, "unsigned16": .u16, "unsigned": .u16,
            "int16": .s16, "int": .s16, "short": .s16, "signed16": .s16, "sint16": .s16,
            "uint32": .u32, "dword": .u32, "udint": .u32, "ulong": .u32, "unsigned32": .u32,
            "int32": .s32, "dint": .s32, "long": .s32, "signed32": .s32, "sint32": .s32,
            "uint64": .u64, "ulint": .u64, "int64": .s64, "lint": .s64,
            "float32": .f32, "float": .f32, "real": .f32, "single": .f32, "ieee754": .f32,
            "float64": .f64, "double": .f64, "lreal": .f64,
        ]
        if let v = names[t] { return .success(v) }
        // STRING(16), STRING[16] (bytes) or STRING with a length column (registers).
        for prefix in ["string", "ascii", "char", "str"] where t.hasPrefix(prefix) {
            let rest = t.dropFirst(prefix.count)
            if rest.isEmpty {
                guard let registers else {
                    return .failure(
                        VendorTypeError(message: "\(text) needs a length: a Length column (registers) or STRING(n) (n bytes)"))
                }
                return RegisterType(parsing: "string(\(registers * 2))").map { .success($0) }
                    ?? .failure(VendorTypeError(message: "a string of \(registers) registers is too long"))
            }
            if (rest.first == "[" && rest.last == "]") || (rest.first == "(" && rest.last == ")"),
                let n = Int(rest.dropFirst().dropLast()), let v = RegisterType(parsing: "string(\(n))")
            {
                return .success(v)
            }
        }
        return .failure(
            VendorTypeError(
                message:
                    "unknown register type; expected u16, s16, u32, s32, u64, s64, f32, f64, string(n) or raw(n), or UINT16, INT16, UINT32, INT32, FLOAT32, STRING"
            ))
    }

    /// Why a type cell is not understood.
    struct VendorTypeError: Error {
        var message: String
    }

    /// `0-7`, `-200..900`, `-10 - 50`, `1 to 247`, `0~100`: the two numbers.
    static func parseRange(_ text: String) -> (ExactNumber, ExactNumber)? {
        let t = text.replacingOccurrences(of: "–", with: "-").replacingOccurrences(of: "…", with: "..")
        for sep in ["..", " to ", "~", " - "] {
            let parts = t.components(separatedBy: sep)
            if parts.count == 2, let a = parseExact(parts[0].trimmingCharacters(in: .whitespaces)),
                let b = parseExact(parts[1].trimmingCharacters(in: .whitespaces))
            {
                return (a, b)
            }
        }
        // `a-b` where a may be negative: split at a '-' that follows a digit.
        let chars = Array(t.filter { !$0.isWhitespace })
        for i in chars.indices.dropFirst() where chars[i] == "-" && chars[i - 1].isNumber {
            if let a = parseExact(String(chars[..<i])), let b = parseExact(String(chars[(i + 1)...])) { return (a, b) }
        }
        return nil
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
        header.lowercased().filter { !" _-/.()".contains($0) }
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
    static func parseInteger(_ text: String) -> Int64? {
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

    /// A bound's number, exactly: an integer (decimal or 0x hex, s64 to u64) as itself, else a finite real.
    static func parseExact(_ text: String) -> ExactNumber? {
        if let i = parseInteger(text) { return ExactNumber(i) }
        if text.allSatisfy(\.isASCII), let u = UInt64(text.hasPrefix("+") ? String(text.dropFirst()) : text) {
            return ExactNumber(u)
        }
        return parseNumber(text).map { ExactNumber($0) }
    }

    static func parseNumber(_ text: String) -> Double? {
        if let i = parseInteger(text) { return Double(i) }
        guard let d = Double(text), d.isFinite else { return nil }
        return d
    }

    static func unsetValue(_ text: String, _ type: RegisterType) -> RegisterValue? {
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
