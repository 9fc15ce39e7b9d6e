import LastsetCore

/// `lastset audit [--limit N] [--all-hosts]`: the latest captures and replays from the audit log (and, in a
/// fleet, every host's).
struct Audit: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "audit", abstract: "Show the audit log: who captured or replayed what, when, and the result.",
        options: [
            .value("--limit", "N", "Show at most the N latest records (1...10000, default 100)"),
            .flag("--all-hosts", "In a fleet: every host's records as synced here, with a HOST column"),
        ])

    /// `--limit`.
    let limit: Int?
    /// `--all-hosts`.
    let allHosts: Bool

    /// Takes --limit and --all-hosts.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        limit = try arguments.integer("--limit", in: 1...10_000)
        allHosts = arguments.flag("--all-hosts")
    }

    /// Prints the audit table.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let query = (limit.map { ["limit=\($0)"] } ?? []) + (allHosts ? ["hosts=all"] : [])
        let page = try context.api.get(
            AuditPage.self, "/v1/audit" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
        if context.options.json { try context.printJSON(page) } else { context.print(TextView.audit(page)) }
        return .success
    }
}
