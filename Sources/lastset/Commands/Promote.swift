import LastsetCore

/// `lastset promote PAGE --version N`: make an older version the latest again.
struct Promote: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "promote", abstract: "Make an older template version the latest again (archived as a new version, audited).",
        discussion: "The new version holds the old one's values, identity and source, with a note of where it came from.",
        arguments: [.init(name: "PAGE", help: "Page id, e.g. heating")],
        options: [
            .value("--version", "N", required: true, "The version to promote: N, or HOST-N in a fleet"),
            .value("--reason", "TEXT", "Why (kept in the audit record and, in a fleet, in the promote record every host gets)"),
        ])

    /// The page.
    let pageId: String
    /// `--version`.
    let version: TemplateVersionRef
    /// `--reason`.
    let reason: String?

    /// Takes PAGE, --version and --reason.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        pageId = arguments.argument("PAGE")
        version = try arguments.templateVersion("--version") ?? .latest
        reason = arguments.value("--reason")
    }

    /// PAGE must be a safe name.
    func validate() throws(UsageError) {
        _ = try ArgumentCheck.pageId(pageId, Self.spec)
    }

    /// Promotes and prints the new version.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let path =
            "/v1/pages/\(DaemonAPI.escape(pageId))/templates/\(DaemonAPI.escape(version.description))/promote"
            + DaemonAPI.query([("reason", reason)])
        let template = try context.api.post(Template.self, path, body: Array("{}".utf8))
        if context.options.json {
            try context.printJSON(template)
        } else {
            context.print([
                "promoted \(pageId) version \(version) as version \(template.versionId.id) (now the latest; \(TextView.plural(template.entries.count, "entry", "entries")))"
            ])
        }
        return .success
    }
}
