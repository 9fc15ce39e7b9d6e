import LastsetCore

/// The human form of a scan: per sweep a line, a table of the devices found, and their config entries.
enum ScanView {
    /// The report as lines.
    static func text(_ report: ScanReport, request: ScanRequest) -> [String] {
        var lines = ["scan of \(report.endpoint): units \(request.units ?? "1-247"), timeout \(report.timeoutMs) ms"]
        for sweep in report.sweeps {
            let at = sweep.baud.map { "\($0) baud: " } ?? ""
            lines.append(
                "\(at)\(sweep.found.count) found, \(sweep.probes) probes, \(sweep.requests) requests, "
                    + String(format: "%.2f s", sweep.seconds))
        }
        if let error = report.error { lines.append("stopped: \(error)") }
        let found = report.found
        guard !found.isEmpty else { return lines + ["no device answered"] }
        var table = Table([
            .init("UNIT"), .init("BAUD"), .init("VENDOR"), .init("PRODUCT"), .init("REVISION"), .init("SUNSPEC"), .init("FITS"),
        ])
        for d in found {
            let id = d.identification
            let sunspec = d.sunspec.map { "models " + $0.realModels.map { String($0.id) }.joined(separator: ",") } ?? "-"
            let fits = d.fits.filter(\.fits).map { "\($0.pageId) v\($0.versionId ?? "?")" }.joined(separator: ", ")
            table.append([
                String(d.unit), Self.baud(d.endpoint), id?.vendorName ?? "-",
                id?.productCode ?? "-", id?.majorMinorRevision ?? "-", sunspec, fits.isEmpty ? "-" : fits,
            ])
        }
        lines += table.lines
        lines.append("config entries (devices):")
        lines += found.map { "  " + $0.configEntry }
        return lines
    }

    /// Generated SunSpec pages as config text, with the generator's notes.
    static func pages(_ pages: [PageDefinition], notes: [String]) -> [String] {
        var lines: [String] = []
        if !pages.isEmpty {
            lines.append("generated pages (SunSpec):")
            lines += pages.map { RegisterMapCSV.json(for: $0) + "," }
        }
        lines += notes.map { "note: \($0)" }
        return lines
    }

    /// The baud of a serial endpoint, `-` on TCP.
    private static func baud(_ endpoint: String) -> String {
        ((try? Endpoint.parse(endpoint))?.lineSettings?.baud).map(String.init) ?? "-"
    }
}
