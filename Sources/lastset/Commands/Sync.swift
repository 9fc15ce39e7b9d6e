import LastsetCore

/// `lastset sync`: sync with the fleet's hub now and report what came in and went out.
struct Sync: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "sync", abstract: "Sync templates and audit records with the fleet's hub now (needs a fleet section).",
        discussion: """
            Commits what is pending, fetches the hub, checks what came in (signatures with requireSigned, every
            template's checksum) and merges it, then pushes. Exit 0 when the sync is ok, 1 when the hub was
            offline, refused or the sync failed (local templates keep working in every case).
            """)

    /// No arguments.
    init(_ arguments: ParsedArguments) throws(UsageError) {}

    /// Posts `/v1/sync` and prints the report.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let report = try context.api.post(SyncReport.self, "/v1/sync", body: [])
        if context.options.json { try context.printJSON(report) } else { context.print(FleetView.sync(report)) }
        return report.result == .ok ? .success : .failure
    }
}
