import LastsetCore

/// `lastset templates PAGE`: the archived versions of a page's template.
struct Templates: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "templates", abstract: "List the archived template versions of a page, newest first.",
        arguments: [.init(name: "PAGE", help: "Page id, e.g. heating")])

    /// The page.
    let pageId: String

    /// Takes PAGE.
    init(_ arguments: ParsedArguments) throws(UsageError) { pageId = arguments.argument("PAGE") }

    /// The page id must be a safe name.
    func validate() throws(UsageError) { _ = try ArgumentCheck.pageId(pageId, Self.spec) }

    /// Prints the version table.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let listings = try context.api.get([TemplateListing].self, "/v1/pages/\(DaemonAPI.escape(pageId))/templates")
        if context.options.json {
            try context.printJSON(listings)
        } else {
            context.print(TextView.templates(listings, pageId: pageId))
        }
        return .success
    }
}
