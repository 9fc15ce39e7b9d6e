import LastsetCore

/// `lastset rollout PAGE`: which configured devices hold the page's latest template.
struct RolloutCommand: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "rollout", abstract: "Show which configured devices hold a page's latest template, an older one, or none.",
        discussion:
            "Standings: latest, older, drifted, unverified, partially-written (a failed replay changed registers: "
            + "no version), never-applied.",
        arguments: [.init(name: "PAGE", help: "Page id, e.g. heating")])

    /// The page.
    let pageId: String

    /// Takes PAGE.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        pageId = arguments.argument("PAGE")
    }

    /// PAGE must be a safe name.
    func validate() throws(UsageError) {
        _ = try ArgumentCheck.pageId(pageId, Self.spec)
    }

    /// Prints the rollout table.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let view = try context.api.get(Rollout.self, "/v1/pages/\(DaemonAPI.escape(pageId))/rollout")
        if context.options.json { try context.printJSON(view) } else { context.print(TextView.rollout(view)) }
        return .success
    }
}
