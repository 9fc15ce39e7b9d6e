import LastsetCore

/// `lastset show PAGE [--version N]`: one template's values.
struct Show: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "show", abstract: "Show a template: its source, identity and every archived value.",
        arguments: [.init(name: "PAGE", help: "Page id, e.g. heating")],
        options: [.value("--version", "N", "Template version: N, or HOST-N in a fleet (default: the latest)")])

    /// The page.
    let pageId: String
    /// `--version`, nil for the latest.
    let version: TemplateVersionRef?

    /// Takes PAGE and --version.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        pageId = arguments.argument("PAGE")
        version = try arguments.templateVersion("--version")
    }

    /// The page id must be a safe name.
    func validate() throws(UsageError) { _ = try ArgumentCheck.pageId(pageId, Self.spec) }

    /// Prints the template.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let path = "/v1/pages/\(DaemonAPI.escape(pageId))/templates/\(version.map(\.description) ?? "latest")"
        let shown = try context.api.get(ShownTemplate.self, path)
        if context.options.json {
            try context.printJSON(shown)
        } else {
            context.print(
                context.rendering(pages: [shown.template.pageId]) {
                    TextView.template(shown.template, applicability: shown.applicableHere)
                })
        }
        return .success
    }
}
