/// A plain-text table: a header row and data rows, each column as wide as its widest cell, two spaces between columns.
///
/// Pure: no I/O, so it is tested directly. Trailing spaces are trimmed from every line.
struct Table: Equatable, Sendable {
    /// How a column's cells are padded.
    enum Alignment: Equatable, Sendable {
        /// Text: padded on the right.
        case left
        /// Numbers: padded on the left.
        case right
    }

    /// A column's header and alignment.
    struct Column: Equatable, Sendable {
        /// The header text (upper case by convention).
        let title: String
        /// How cells are padded.
        let alignment: Alignment

        /// A column; left-aligned unless told otherwise.
        init(_ title: String, _ alignment: Alignment = .left) {
            self.title = title
            self.alignment = alignment
        }
    }

    /// The columns, in order.
    var columns: [Column]
    /// The data rows; a short row is padded with empty cells, extra cells are dropped.
    var rows: [[String]]

    /// A table with columns and optional initial rows.
    init(_ columns: [Column], rows: [[String]] = []) {
        self.columns = columns
        self.rows = rows
    }

    /// Appends one row.
    mutating func append(_ row: [String]) { rows.append(row) }

    /// The rendered lines, header first.
    var lines: [String] {
        let all =
            [columns.map(\.title)]
            + rows.map { row in
                (0..<columns.count).map { $0 < row.count ? Table.singleLine(row[$0]) : "" }
            }
        var widths = [Int](repeating: 0, count: columns.count)
        for row in all {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return all.map { row in
            var line = ""
            for (index, cell) in row.enumerated() {
                if index > 0 { line += "  " }
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                line += columns[index].alignment == .left ? cell + pad : pad + cell
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// The rendered table, lines joined with newlines (no trailing newline).
    var text: String { lines.joined(separator: "\n") }

    /// Control characters (a newline in a daemon message, a tab) would break the columns: shown as `\n`, `\t`, `\u{…}`.
    static func singleLine(_ cell: String) -> String {
        guard cell.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return cell }
        var out = ""
        for scalar in cell.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
