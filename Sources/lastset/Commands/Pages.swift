import LastsetCore

/// `lastset pages`: the configured pages and their latest templates.
struct Pages: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "pages", abstract: "List the configured pages and the latest template version of each.")

    /// No arguments.
    init(_ arguments: ParsedArguments) throws(UsageError) {}

    /// Prints the page table.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let pages = try context.api.get([PageSummary].self, "/v1/pages")
        if context.options.json { try context.printJSON(pages) } else { context.print(TextView.pages(pages)) }
        return .success
    }
}
