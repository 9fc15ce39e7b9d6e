import Foundation

/// A file of a certificate: the page, the PDF, and the detached signature of each.
public enum CertificateFormat: String, Sendable, Hashable, CaseIterable {
    /// The PDF (pango on cairo: `LastsetPDF`): the document to print and hand over.
    case pdf
    /// The printable HTML page (self-contained: no script, no outside resource).
    case html
    /// The detached SSH signature of the PDF's bytes.
    case pdfSignature = "pdf.sig"
    /// The detached SSH signature of the HTML page's bytes.
    case htmlSignature = "html.sig"

    /// The file a signature covers (nil for a signature itself: the page or the PDF).
    public var signed: CertificateFormat? {
        switch self {
        case .html, .pdf: return nil
        case .htmlSignature: return .html
        case .pdfSignature: return .pdf
        }
    }

    /// Its media type.
    public var contentType: String {
        switch self {
        case .html: return "text/html; charset=utf-8"
        case .pdf: return "application/pdf"
        case .htmlSignature, .pdfSignature: return "text/plain; charset=utf-8"
        }
    }

    /// The file's name for a job: `lastset-certificate-<first 8 characters of the job>.<format>`.
    /// Characters other than letters, digits and `-` are left out (a job id is a UUID; a name is never a path).
    public func fileName(job: String) -> String {
        let safe = job.unicodeScalars.filter { $0.isASCII && ($0 == "-" || CharacterSet.alphanumerics.contains($0)) }
        return "lastset-certificate-\(String(String.UnicodeScalarView(safe)).prefix(8)).\(rawValue)"
    }
}
