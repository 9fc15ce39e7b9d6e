import Foundation
import LastsetFormats

/// One data row of a vendor CSV read cell by cell into a register's fields; each bad cell is a problem with the row's
/// line, its column and its value, in the order the columns are checked.
struct CSVRowReader {
    /// The row's line (where it starts).
    let line: Int
    private let fields: [String]
    /// Column name → field position, from the header.
    private let index: [String: Int]
    /// The problems found so far, in the order found.
    private(set) var problems: [CSVProblem] = []

    init(line: Int, fields: [String], index: [String: Int]) {
        self.line = line
        self.fields = fields
        self.index = index
    }

    /// The cell of column `name`, trimmed; nil when the column is absent or the cell empty.
    func cell(_ name: String) -> String? {
        guard let i = index[name], i < fields.count else { return nil }
        let v = fields[i].trimmingCharacters(in: .whitespaces)
        return v.isEmpty ? nil : v
    }

    /// Records a problem with `column` on this row; `value` is quoted.
    mutating func add(_ column: String, _ value: String?, _ message: String) {
        problems.append(CSVProblem(line: line, column: column, value: value.map(JSONValue.quote) ?? "", message: message))
    }

    /// The PDU address, read as `style` numbers the list (hex is always a PDU address).
    mutating func address(_ style: RegisterMapCSV.Addressing) -> Int? {
        guard let a = cell("address") else {
            add("address", nil, "address is empty")
            return nil
        }
        guard let n = RegisterMapCSV.parseInteger(a).flatMap({ Int(exactly: $0) }) else {
            add("address", a, "not an address; write decimal (1536) or hex (0x600)")
            return nil
        }
        if a.lowercased().hasPrefix("0x") { return n }
        switch style {
        case .oneBased:
            if n < 1 { add("address", a, "register numbers counted from 1 start at 1") }
            return n - 1
        case .modicon:
            if (30001...39999).contains(n) || (300001...365536).contains(n) {
                add("address", a, "an input register (3xxxx) cannot be written; only holding registers (4xxxx)")
            } else if (40001...49999).contains(n) {
                return n - 40001
            } else if (400001...465536).contains(n) {
                return n - 400001
            } else {
                add("address", a, "not a Modicon holding-register number (40001…49999 or 400001…465536)")
            }
            return n
        case .auto, .pdu:
            return n
        }
    }

    /// The register type, from the type cell and the length column (which must agree with it).
    mutating func type() -> RegisterType? {
        guard let t = cell("type") else {
            add("type", nil, "type is empty")
            return nil
        }
        var length: Int?
        if let l = cell("length") {
            length = Int(l)
            if length == nil || length! < 1 { add("length", l, "length must be a number of registers (1 or more)") }
        }
        var type: RegisterType?
        switch RegisterMapCSV.vendorType(t, registers: length) {
        case .success(let v): type = v
        case .failure(let error): add("type", t, error.message)
        }
        if let type, let length, length != type.registerCount {
            add("length", String(length), "\(type) takes \(type.registerCount) register(s), the length column says \(length)")
        }
        return type
    }

    /// The registerId cell, or one derived from the name under `pageId`.
    mutating func registerId(name: String?, pageId: String) -> String? {
        if let id = cell("registerId") { return id }
        guard let name else { return nil }
        let slug = RegisterMapCSV.slugify(name)
        if slug.isEmpty {
            add("name", name, "cannot derive a registerId from this name; fill the registerId column")
            return nil
        }
        return "\(pageId).\(slug)"
    }

    /// The access cell in the spellings vendors use.
    mutating func access() -> Access? {
        guard let a = cell("access") else { return nil }
        switch a.lowercased().filter({ !$0.isWhitespace }) {
        case "rw", "r/w", "w", "wo", "readwrite", "read/write", "write", "holding": return .rw
        case "ro", "r", "r/o", "read", "readonly", "read-only", "input": return .ro
        default:
            add("access", a, "access must be rw or ro (R/W, RW, W; R, RO)")
            return nil
        }
    }

    /// The number in `column`, exactly.
    mutating func number(_ column: String) -> ExactNumber? {
        guard let text = cell(column) else { return nil }
        if let n = RegisterMapCSV.parseExact(text) { return n }
        add(column, text, "not a number")
        return nil
    }

    /// min and max: their own columns, or the range column (which must agree with them).
    mutating func bounds() -> (min: ExactNumber?, max: ExactNumber?) {
        var min = number("min")
        var max = number("max")
        if let r = cell("range") {
            if let (lo, hi) = RegisterMapCSV.parseRange(r) {
                if (min != nil && min != lo) || (max != nil && max != hi) {
                    add("range", r, "range disagrees with the min/max columns")
                }
                min = lo
                max = hi
            } else {
                add("range", r, "range must be two numbers, e.g. 0-7, -200..900 or 1 to 247")
            }
        }
        return (min, max)
    }

    /// The scale: `0.1`, `x10` or `1/10`.
    mutating func scale() -> Double? {
        guard let text = cell("scale") else { return nil }
        if let n = RegisterMapCSV.parseNumber(text.lowercased().hasPrefix("x") ? String(text.dropFirst()) : text) {
            return n
        } else if let slash = text.firstIndex(of: "/"), let a = RegisterMapCSV.parseNumber(String(text[..<slash])),
            let b = RegisterMapCSV.parseNumber(String(text[text.index(after: slash)...])), b != 0
        {
            return a / b
        }
        add("scale", text, "not a number (0.1, x10 or 1/10)")
        return nil
    }

    /// The enum values: numbers separated by `|`.
    mutating func enumValues() -> [ExactNumber]? {
        guard let e = cell("enum") else { return nil }
        var values: [ExactNumber] = []
        for part in e.split(separator: "|", omittingEmptySubsequences: false) {
            let p = part.trimmingCharacters(in: .whitespaces)
            if let n = RegisterMapCSV.parseExact(p) {
                values.append(n)
            } else {
                add("enum", p, "enum values are numbers separated by |")
            }
        }
        return values
    }

    /// The clone cell: true/yes/y/1 or false/no/n/0.
    mutating func clone() -> Bool? {
        guard let c = cell("clone") else { return nil }
        switch c.lowercased() {
        case "true", "yes", "y", "1": return true
        case "false", "no", "n", "0": return false
        default:
            add("clone", c, "clone must be true or false")
            return nil
        }
    }

    /// A word or byte order column: big or little.
    mutating func order(_ column: String) -> String? {
        guard let o = cell(column) else { return nil }
        guard ["big", "little"].contains(o.lowercased()) else {
            add(column, o, "\(column) must be big or little")
            return nil
        }
        return o.lowercased()
    }

    /// The "not set" value of a register of `type`.
    mutating func unset(_ type: RegisterType?) -> RegisterValue? {
        guard let u = cell("unset"), let type else { return nil }
        let unset = RegisterMapCSV.unsetValue(u, type)
        if unset == nil {
            add("unset", u, type.isNumeric ? "unset must be a number" : "unset of \(type) must be hex bytes")
        }
        return unset
    }

    /// The factory default of a register of `type` (documentation), normalized for the type.
    mutating func factoryDefault(_ type: RegisterType?) -> RegisterValue? {
        guard let d = cell("factoryDefault"), let type else { return nil }
        let value = RegisterMapCSV.unsetValue(d, type).map { RegisterRules.normalized($0, for: type) }
        if value == nil {
            add("factoryDefault", d, type.isNumeric ? "default must be a number" : "default of \(type) must be hex bytes")
        }
        return value
    }
}
