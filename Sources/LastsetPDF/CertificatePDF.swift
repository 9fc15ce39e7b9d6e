import CPangoCairo
import Foundation
import LastsetCore
import LastsetFormats

/// Lays a certificate out as a PDF with cairo and pango (Debian's libcairo2 and libpango): A4 landscape, the
/// verdict, the facts, the register table (its header repeated on each page, rows that did not take shaded), what
/// the records lack and how to check the signature. It only lays out `HandOverCertificate`'s texts. The same
/// certificate always gives the same bytes: the document's dates are the job's (`recordedAt`), never the clock's.
public enum CertificatePDF {
    /// The PDF's bytes.
    public static func render(_ c: HandOverCertificate) -> [UInt8] {
        let sink = ByteSink()
        let unmanaged = Unmanaged.passRetained(sink)
        defer { unmanaged.release() }
        let surface = cairo_pdf_surface_create_for_stream(
            { closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
                Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue().bytes.append(
                    contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                return CAIRO_STATUS_SUCCESS
            }, unmanaged.toOpaque(), PDFPen.pageWidth, PDFPen.pageHeight)
        let date = pdfDate(c.recordedAt)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, date)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_MOD_DATE, date)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, "\(c.title) \(c.job)")
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "lastset")
        let cr = cairo_create(surface)
        let pen = PDFPen(cr!, footer: "Lastset hand-over certificate · job \(c.job)")
        pen.text(c.title, font: .title)
        pen.gap(4)
        pen.verdict(c.summary, complete: c.verdict == .complete)
        pen.gap(8)
        pen.facts(c.facts)
        pen.gap(10)
        pen.registers(columns: c.columns, rows: c.rows)
        pen.gap(10)
        pen.bullets("Not recorded", c.notRecorded)
        pen.bullets("Verifying this certificate", c.verification, font: .small)
        pen.finish()
        cairo_destroy(cr)
        cairo_surface_finish(surface)
        cairo_surface_destroy(surface)
        return sink.bytes
    }

    /// `recordedAt` as cairo's metadata date (ISO 8601, UTC, whole seconds).
    static func pdfDate(_ date: Date) -> String {
        let text = TimeText.iso8601(date)  // 2026-12-06T09:40:30.094Z
        return String(text.prefix(19)) + "Z"
    }
}

/// What cairo writes, collected.
private final class ByteSink {
    var bytes: [UInt8] = []
}
