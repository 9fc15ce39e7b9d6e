import CPangoCairo
import LastsetCore

/// A cursor down the pages of a PDF: draws wrapped text with pango at the current height, and starts a new page
/// (with its footer) when the next block does not fit. Owns the pango font map, context and layout it draws with.
final class PDFPen {
    /// A4 landscape, in points.
    static let pageWidth = 841.89
    static let pageHeight = 595.28
    static let margin = 36.0
    /// Space inside a table cell.
    static let padding = 3.0

    /// The fonts the certificate uses (DejaVu: Debian's fonts-dejavu-core).
    enum Font: String, CaseIterable {
        case title = "DejaVu Sans Bold 15"
        case heading = "DejaVu Sans Bold 10.5"
        case body = "DejaVu Sans 8.5"
        case bold = "DejaVu Sans Bold 8.5"
        case value = "DejaVu Sans Mono 8.5"
        case small = "DejaVu Sans 7.5"
    }

    private let cr: OpaquePointer
    private let fontMap: UnsafeMutablePointer<PangoFontMap>
    private let context: OpaquePointer
    private let layout: OpaquePointer
    private var fonts: [Font: OpaquePointer] = [:]
    private let footer: String
    private var page = 1
    /// The height the next block starts at.
    private(set) var y = PDFPen.margin
    private var width: Double { Self.pageWidth - 2 * Self.margin }
    private var bottom: Double { Self.pageHeight - Self.margin - 14 }

    init(_ cr: OpaquePointer, footer: String) {
        self.cr = cr
        self.footer = footer
        fontMap = pango_cairo_font_map_new()
        context = pango_font_map_create_context(fontMap)
        // Font sizes in points on a page measured in points (pango's default is 96 dpi).
        pango_cairo_context_set_resolution(context, 72)
        pango_cairo_update_context(cr, context)
        layout = pango_layout_new(context)
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        for font in Font.allCases { fonts[font] = pango_font_description_from_string(font.rawValue) }
    }

    deinit {
        for description in fonts.values { pango_font_description_free(description) }
        g_object_unref(UnsafeMutableRawPointer(layout))
        g_object_unref(UnsafeMutableRawPointer(context))
        g_object_unref(UnsafeMutableRawPointer(fontMap))
    }

    /// Sets the layout to `text` in `font`, wrapped at `width`; its height.
    @discardableResult
    private func set(_ text: String, font: Font, width: Double) -> Double {
        pango_layout_set_font_description(layout, fonts[font])
        pango_layout_set_width(layout, Int32(width * Double(PANGO_SCALE)))
        pango_layout_set_text(layout, text, -1)
        var w: Int32 = 0
        var h: Int32 = 0
        pango_layout_get_pixel_size(layout, &w, &h)
        return Double(h)
    }

    /// Draws `text` at (x, y) wrapped at `width`; its height.
    @discardableResult
    private func draw(_ text: String, font: Font, x: Double, y: Double, width: Double) -> Double {
        let height = set(text, font: font, width: width)
        cairo_set_source_rgb(cr, 0, 0, 0)
        cairo_move_to(cr, x, y)
        pango_cairo_show_layout(cr, layout)
        return height
    }

    /// Moves down by `points`.
    func gap(_ points: Double) { y += points }

    /// Starts a new page when `height` does not fit on this one; true when it did.
    private func ensure(_ height: Double) {
        if !fits(height) { newPage() }
    }

    /// Ends this page (its footer) and starts the next.
    func newPage() {
        drawFooter()
        cairo_show_page(cr)
        page += 1
        y = Self.margin
    }

    private func drawFooter() {
        draw("\(footer) · page \(page)", font: .small, x: Self.margin, y: Self.pageHeight - Self.margin, width: width)
    }

    /// The last page's footer.
    func finish() { drawFooter() }

    /// A paragraph across the page.
    func text(_ text: String, font: Font) {
        let height = set(text, font: font, width: width)
        ensure(height)
        y += draw(text, font: font, x: Self.margin, y: y, width: width)
    }

    /// The verdict in a box: green when complete, red otherwise.
    func verdict(_ text: String, complete: Bool) {
        let inner = width - 2 * Self.padding - 4
        let height = set(text, font: .heading, width: inner) + 2 * Self.padding + 4
        ensure(height)
        cairo_rectangle(cr, Self.margin, y, width, height)
        if complete { cairo_set_source_rgb(cr, 0.90, 0.96, 0.90) } else { cairo_set_source_rgb(cr, 0.98, 0.89, 0.89) }
        cairo_fill_preserve(cr)
        cairo_set_source_rgb(cr, 0, 0, 0)
        cairo_set_line_width(cr, 1)
        cairo_stroke(cr)
        draw(text, font: .heading, x: Self.margin + Self.padding + 2, y: y + Self.padding + 2, width: inner)
        y += height
    }

    /// The labelled facts as a two-column table.
    func facts(_ facts: [CertificateFact]) {
        let widths = [170.0, width - 170]
        for fact in facts { row([fact.label, fact.value], widths: widths, fonts: [.bold, .body], shade: nil) }
    }

    /// One table row, on a new page when it does not fit on this one.
    func row(_ cells: [String], widths: [Double], fonts rowFonts: [Font], shade: (Double, Double, Double)?) {
        let height = rowHeight(cells, widths: widths, fonts: rowFonts)
        ensure(height)
        drawRow(cells, widths: widths, fonts: rowFonts, height: height, shade: shade)
    }

    /// How high a row is: its tallest cell, each wrapped in its column, with the padding.
    func rowHeight(_ cells: [String], widths: [Double], fonts rowFonts: [Font]) -> Double {
        var height = 0.0
        for (i, cell) in cells.enumerated() {
            height = max(height, set(cell, font: rowFonts[i], width: widths[i] - 2 * Self.padding))
        }
        return height + 2 * Self.padding
    }

    /// True when a block of `height` fits below the current height on this page.
    func fits(_ height: Double) -> Bool { y + height <= bottom || y <= Self.margin }

    /// Draws a row at the current height: each cell boxed (and shaded when asked), its text wrapped in it.
    func drawRow(_ cells: [String], widths: [Double], fonts rowFonts: [Font], height: Double, shade: (Double, Double, Double)?) {
        var x = Self.margin
        for (i, cell) in cells.enumerated() {
            cairo_rectangle(cr, x, y, widths[i], height)
            if let shade {
                cairo_set_source_rgb(cr, shade.0, shade.1, shade.2)
                cairo_fill_preserve(cr)
            }
            cairo_set_source_rgb(cr, 0.55, 0.55, 0.55)
            cairo_set_line_width(cr, 0.5)
            cairo_stroke(cr)
            draw(cell, font: rowFonts[i], x: x + Self.padding, y: y + Self.padding, width: widths[i] - 2 * Self.padding)
            x += widths[i]
        }
        y += height
    }

    /// A heading and a bulleted list (nothing when empty).
    func bullets(_ title: String, _ items: [String], font: Font = .body) {
        guard !items.isEmpty else { return }
        gap(4)
        // The heading stays with its first item.
        ensure(set(title, font: .heading, width: width) + 2 + set(items[0], font: font, width: width - 12))
        text(title, font: .heading)
        gap(2)
        for item in items {
            let height = set(item, font: font, width: width - 12)
            ensure(height)
            draw("•", font: font, x: Self.margin, y: y, width: 10)
            y += draw(item, font: font, x: Self.margin + 12, y: y, width: width - 12) + 1.5
        }
    }
}
