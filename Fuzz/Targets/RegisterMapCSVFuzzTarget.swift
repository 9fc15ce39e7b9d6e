import LastsetCore

/// A vendor register list through `RegisterMapCSV.page(fromCSV:…)` and, when it imports, the page JSON that
/// `lastset import-map` prints.
public enum RegisterMapCSVFuzzTarget: FuzzTarget {
    /// `registerMapCSV`.
    public static let name = "registerMapCSV"

    /// Imports the bytes as CSV (invalid UTF-8 is repaired here; the CLI refuses such a file before this point);
    /// every problem must be listed.
    public static func run(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        do {
            let page = try RegisterMapCSV.page(fromCSV: text, pageId: "fuzz", title: nil)
            _ = RegisterMapCSV.json(for: page)
        } catch {
            precondition(!error.problems.isEmpty, "a refused CSV must name at least one problem")
        }
    }
}
