/// Lays a certificate out as one printable HTML page: self-contained (styles inline, no script, no outside
/// resource), A4 landscape when printed, every text escaped. It only lays out `HandOverCertificate`'s texts.
public enum CertificateHTML {
    /// The page's bytes (UTF-8).
    public static func render(_ c: HandOverCertificate) -> [UInt8] { Array(page(c).utf8) }

    /// The page's text.
    public static func page(_ c: HandOverCertificate) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(escape(c.title)) \(escape(c.job))</title>
            <style>
            @page { size: A4 landscape; margin: 12mm; }
            body { font-family: "DejaVu Sans", sans-serif; font-size: 10pt; color: #000; margin: 1.5em; }
            h1 { font-size: 16pt; margin: 0 0 0.3em 0; }
            p.verdict { font-weight: bold; padding: 0.4em; border: 1px solid #000; }
            p.verdict.complete { background: #e6f4e6; }
            p.verdict.incomplete, p.verdict.interrupted, p.verdict.outcome-not-recorded { background: #fbe3e3; }
            table { border-collapse: collapse; margin: 0.6em 0; }
            th, td { border: 1px solid #888; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
            table.facts th { background: #f0f0f0; white-space: nowrap; }
            table.registers th { background: #f0f0f0; }
            tr.missed td { background: #fbe3e3; }
            td.value { font-family: "DejaVu Sans Mono", monospace; white-space: nowrap; }
            ul { margin: 0.3em 0; }
            .small { font-size: 8.5pt; word-break: break-all; }
            </style>
            </head>
            <body>
            <h1>\(escape(c.title))</h1>
            <p class="verdict \(c.verdict.rawValue)">\(escape(c.summary))</p>
            <table class="facts">

            """
        for fact in c.facts { html += "<tr><th>\(escape(fact.label))</th><td>\(escape(fact.value))</td></tr>\n" }
        html += "</table>\n<table class=\"registers\">\n<tr>"
        html += c.columns.map { "<th>\(escape($0))</th>" }.joined() + "</tr>\n"
        for row in c.rows {
            let cells = row.cells.enumerated().map { i, cell in
                (1...4).contains(i) ? "<td class=\"value\">\(escape(cell))</td>" : "<td>\(escape(cell))</td>"
            }
            html += "<tr\(row.took ? "" : " class=\"missed\"")>" + cells.joined() + "</tr>\n"
        }
        html += "</table>\n"
        html += section("Not recorded", c.notRecorded)
        html += section("Verifying this certificate", c.verification, small: true)
        html += "</body>\n</html>\n"
        return html
    }

    /// A titled list (nothing when empty).
    private static func section(_ title: String, _ items: [String], small: Bool = false) -> String {
        guard !items.isEmpty else { return "" }
        let list = items.map { "<li>\(escape($0))</li>" }.joined(separator: "\n")
        return "<h2>\(escape(title))</h2>\n<ul\(small ? " class=\"small\"" : "")>\n\(list)\n</ul>\n"
    }

    /// Text made safe for HTML content and attribute values.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for ch in text.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                // Control characters other than tab and newline are shown as their code, never passed through.
                if ch.value < 0x20 && ch != "\t" && ch != "\n" || ch.value == 0x7F {
                    out += "&#xFFFD;"
                } else {
                    out.unicodeScalars.append(ch)
                }
            }
        }
        return out
    }
}
