import Foundation
import LastsetCore

/// `lastset import FILE`: archive a template file (e.g. from another host) as its page's next version.
struct Import: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "import", abstract: "Import an exported template file as the next version of its page.",
        discussion: "The file is checked here first (format, schema version, checksum); the daemon checks it again.",
        arguments: [.init(name: "FILE", help: "A template file written by export")])

    /// The file to import.
    let file: String

    /// Takes FILE.
    init(_ arguments: ParsedArguments) throws(UsageError) { file = arguments.argument("FILE") }

    /// Reads and checks the file, posts it to its page and prints the version it became.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw CLIError("cannot read \"\(file)\": \(error.localizedDescription)")
        }
        let local: Template
        do {
            local = try TemplateFile.decode(data)
        } catch {
            throw CLIError("\"\(file)\" is not a usable template file: \(error.reason)")
        }
        let archived = try context.api.post(
            Template.self, "/v1/pages/\(DaemonAPI.escape(local.pageId))/templates", body: [UInt8](data))
        if context.options.json {
            try context.printJSON(archived)
        } else {
            context.console.out(
                "imported \(file) as \(archived.pageId) version \(archived.version) (\(TextView.plural(archived.entries.count, "entry", "entries")), captured \(TextView.time(archived.capturedAt)))"
            )
        }
        return .success
    }
}
