import LastsetCore

/// `lastset audit [--limit N]`: the latest captures and replays from the audit log.
struct Audit: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "audit", abstract: "Show the audit log: who captured or replayed what, when, and the result.",
        options: [.value("--limit", "N", "Show at most the N latest records (1...10000, default 100)")])

    /// `--limit`.
    let limit: Int?

    /// Takes --limit.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        limit = try arguments.integer("--limit", in: 1...10_000)
    }

    /// Prints the audit table.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let page = try context.api.get(AuditPage.self, "/v1/audit" + (limit.map { "?limit=\($0)" } ?? ""))
        if context.options.json { try context.printJSON(page) } else { context.print(TextView.audit(page)) }
        return .success
    }
}
