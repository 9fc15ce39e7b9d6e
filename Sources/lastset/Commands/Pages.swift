import LastsetCore

/// `lastset pages [PAGE]`: the configured pages and their latest templates, or one page's definition.
struct Pages: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "pages", abstract: "List the configured pages and the latest template version of each, or show one page.",
        discussion: "With PAGE: its definition (identity, unlock/commit steps, every register in write order).",
        arguments: [.init(name: "PAGE", help: "Show this page's definition", isOptional: true)])

    /// The page to show, nil for the list.
    let pageId: String?

    /// Takes the optional PAGE.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        pageId = arguments.optionalArgument("PAGE")
    }

    /// PAGE must be a safe name.
    func validate() throws(UsageError) {
        if let pageId { _ = try ArgumentCheck.pageId(pageId, Self.spec) }
    }

    /// Prints the page table, or one page's definition.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        if let pageId {
            let page = try context.api.get(PageDefinition.self, "/v1/pages/\(DaemonAPI.escape(pageId))")
            if context.options.json { try context.printJSON(page) } else { context.print(TextView.pageDefinition(page)) }
            return .success
        }
        let pages = try context.api.get([PageSummary].self, "/v1/pages")
        if context.options.json { try context.printJSON(pages) } else { context.print(TextView.pages(pages)) }
        return .success
    }
}
