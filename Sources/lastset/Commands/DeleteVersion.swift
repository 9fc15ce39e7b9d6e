import LastsetCore

/// `lastset delete PAGE --version N [--force] [--reason TEXT]`: remove one template version.
struct DeleteVersion: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "delete", abstract: "Delete a template version (audited; refused while a device holds it unless --force).",
        discussion: """
            Deleting the latest makes the version before it the latest. A deleted number is never given again. In a
            fleet the delete travels to every host as the version's tombstone (who, when, why): every host removes it.
            """,
        arguments: [.init(name: "PAGE", help: "Page id, e.g. heating")],
        options: [
            .value("--version", "N", required: true, "The version to delete: N, or HOST-N in a fleet"),
            .flag("--force", "Delete even though a device is recorded as holding it"),
            .value("--reason", "TEXT", "Why (kept in the audit record and, in a fleet, in the tombstone every host gets)"),
        ])

    /// The page.
    let pageId: String
    /// `--version`.
    let version: TemplateVersionRef
    /// `--force`.
    let force: Bool
    /// `--reason`.
    let reason: String?

    /// Takes PAGE, --version and --force.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        pageId = arguments.argument("PAGE")
        version = try arguments.templateVersion("--version") ?? .latest
        force = arguments.flag("--force")
        reason = arguments.value("--reason")
    }

    /// PAGE must be a safe name.
    func validate() throws(UsageError) {
        _ = try ArgumentCheck.pageId(pageId, Self.spec)
    }

    /// Deletes and says what is the latest now.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let path =
            "/v1/pages/\(DaemonAPI.escape(pageId))/templates/\(DaemonAPI.escape(version.description))"
            + DaemonAPI.query([("force", force ? "1" : nil), ("reason", reason)])
        let done = try context.api.delete(VersionDeletion.self, path)
        if context.options.json {
            try context.printJSON(done)
        } else {
            var line = "deleted \(pageId) version \(done.versionId)"
            if !done.heldBy.isEmpty { line += " (forced: \(done.heldBy.joined(separator: ", ")) recorded as holding it)" }
            line += "; latest is now " + (done.latestVersion.map { "v\($0)" } ?? "none")
            context.print([line])
        }
        return .success
    }
}
