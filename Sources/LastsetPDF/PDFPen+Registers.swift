import LastsetCore

extension PDFPen {
    /// Each column's share of the page width: the register id, the four values, where from, tolerance, outcome.
    static let registerColumnShares = [0.18, 0.09, 0.09, 0.09, 0.09, 0.08, 0.075, 0.305]

    /// The register table: its header row on top and again at the top of every page it continues on; the values in
    /// a monospaced font; each row that did not take shaded.
    func registers(columns: [String], rows: [CertificateRow]) {
        let total = Self.pageWidth - 2 * Self.margin
        let widths = Self.registerColumnShares.map { $0 * total }
        let headerFonts = [Font](repeating: .bold, count: columns.count)
        let grey = (0.94, 0.94, 0.94)
        row(columns, widths: widths, fonts: headerFonts, shade: grey)
        let fonts: [Font] = [.body, .value, .value, .value, .value, .body, .body, .body]
        for row in rows {
            let height = rowHeight(row.cells, widths: widths, fonts: fonts)
            if !fits(height) {
                newPage()
                drawRow(
                    columns, widths: widths, fonts: headerFonts, height: rowHeight(columns, widths: widths, fonts: headerFonts),
                    shade: grey)
            }
            drawRow(row.cells, widths: widths, fonts: fonts, height: height, shade: row.took ? nil : (0.98, 0.89, 0.89))
        }
    }
}
