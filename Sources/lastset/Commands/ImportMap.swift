import Foundation
import LastsetCore

/// `lastset import-map FILE --page ID [--title T] [--format csv|wb] [--addressing …]`: a vendor register
/// list or a wb-mqtt-serial device template as page definitions (offline).
struct ImportMap: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "import-map",
        abstract: "Turn a vendor CSV register list or a wb-mqtt-serial template into page definitions (JSON for the config).",
        discussion: """
            Works offline: the daemon is not contacted. A CSV becomes one page, printed as JSON ready to paste into the
            "pages" array of /etc/lastset/lastset.json; a wb-mqtt-serial template (--format wb) becomes an array of pages,
            one per parameter group. What the import assumed, and what it did not import, is said on stderr. Every problem
            is reported with its line and column, or JSON path, and value (see docs/IMPORT.md).
            """,
        arguments: [.init(name: "FILE", help: "The vendor's register list saved as CSV, or a wb-mqtt-serial template")],
        options: [
            .value("--page", "ID", required: true, "Id of the new page (a wb template's groups become ID-GROUP)"),
            .value("--title", "TITLE", "The page's title (CSV)"),
            .value("--format", "FORMAT", "csv (default) or wb (a wb-mqtt-serial device template)"),
            .value(
                "--addressing", "MODE",
                "How a CSV numbers registers: auto (default: Modicon 4xxxx when every address is one), pdu, one-based, modicon"),
        ])

    /// This one never talks to the daemon.
    static var usesDaemon: Bool { false }

    /// The file.
    let file: String
    /// `--page`.
    let pageId: String
    /// `--title`.
    let title: String?
    /// `--format wb`.
    let wb: Bool
    /// `--addressing`.
    let addressing: RegisterMapCSV.Addressing

    /// Takes FILE, --page, --title, --format and --addressing.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = arguments.argument("FILE")
        pageId = arguments.value("--page") ?? ""
        title = arguments.value("--title")
        switch arguments.value("--format") {
        case nil, "csv"?: wb = false
        case "wb"?: wb = true
        case let other?: throw UsageError("--format must be csv or wb (got \"\(other)\")", command: Self.spec)
        }
        let mode = arguments.value("--addressing") ?? "auto"
        guard let a = RegisterMapCSV.Addressing(rawValue: mode) else {
            throw UsageError(
                "--addressing must be one of \(RegisterMapCSV.Addressing.allCases.map(\.rawValue).joined(separator: ", ")) (got \"\(mode)\")",
                command: Self.spec)
        }
        addressing = a
    }

    /// The page id must be a safe name; --addressing is for CSV.
    func validate() throws(UsageError) {
        _ = try ArgumentCheck.pageId(pageId, Self.spec)
        if wb && addressing != .auto { throw UsageError("--addressing is for CSV lists, not wb templates", command: Self.spec) }
    }

    /// Reads the file and prints the pages' JSON, or every problem on stderr.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        if wb { return try runWB(context) }
        let text: String
        do {
            text = try String(contentsOf: URL(fileURLWithPath: file), encoding: .utf8)
        } catch {
            throw CLIError("cannot read \"\(file)\" as UTF-8 text: \(error.localizedDescription)")
        }
        do {
            let imported = try RegisterMapCSV.importPage(fromCSV: text, pageId: pageId, title: title, addressing: addressing)
            for note in imported.assumptions { context.console.err("note: \(note)") }
            context.console.out(RegisterMapCSV.json(for: imported.page))
            return .success
        } catch {
            throw problems(error.problems)
        }
    }

    private func runWB(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw CLIError("cannot read \"\(file)\": \(error.localizedDescription)")
        }
        do {
            let imported = try WBTemplate.pages(from: data, pageId: pageId)
            for note in imported.assumptions { context.console.err("note: \(note)") }
            for part in imported.notImported { context.console.err("not imported: \(part)") }
            context.console.out(WBTemplate.json(for: imported.pages))
            return .success
        } catch {
            throw problems(error.problems)
        }
    }

    /// The import's problems, one line each, prefixed with the file.
    private func problems(_ list: [some CustomStringConvertible]) -> CLIError {
        CLIError(
            "\(file): \(TextView.plural(list.count, "problem")):\n"
                + list.map { "\(file): \($0)" }.joined(separator: "\n"))
    }
}
