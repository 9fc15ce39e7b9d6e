import Foundation
import LastsetCore

/// `lastset import-map CSV --page ID [--title T]`: a vendor register list as a page definition (offline).
struct ImportMap: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "import-map", abstract: "Turn a vendor CSV register list into a page definition (JSON for the config).",
        discussion: """
            Works offline: the daemon is not contacted. Prints the page as JSON, ready to paste into the "pages" array
            of /etc/lastset/lastset.json. Every problem is reported with its line, column and value (see docs/CSV-IMPORT.md).
            """,
        arguments: [.init(name: "CSV", help: "The vendor's register list, saved as CSV")],
        options: [
            .value("--page", "ID", required: true, "Id of the new page"),
            .value("--title", "TITLE", "The page's title"),
        ])

    /// This one never talks to the daemon.
    static var usesDaemon: Bool { false }

    /// The CSV file.
    let file: String
    /// `--page`.
    let pageId: String
    /// `--title`.
    let title: String?

    /// Takes CSV, --page and --title.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = arguments.argument("CSV")
        pageId = arguments.value("--page") ?? ""
        title = arguments.value("--title")
    }

    /// The page id must be a safe name.
    func validate() throws(UsageError) { _ = try ArgumentCheck.pageId(pageId, Self.spec) }

    /// Reads the CSV and prints the page's JSON, or every problem on stderr.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let text: String
        do {
            text = try String(contentsOf: URL(fileURLWithPath: file), encoding: .utf8)
        } catch {
            throw CLIError("cannot read \"\(file)\" as UTF-8 text: \(error.localizedDescription)")
        }
        do {
            let page = try RegisterMapCSV.page(fromCSV: text, pageId: pageId, title: title)
            context.console.out(RegisterMapCSV.json(for: page))
            return .success
        } catch {
            let count = error.problems.count
            throw CLIError(
                "\(file): \(TextView.plural(count, "problem")):\n"
                    + error.problems.map { "\(file): \($0)" }.joined(separator: "\n"))
        }
    }
}
