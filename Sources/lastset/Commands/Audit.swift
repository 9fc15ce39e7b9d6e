import Foundation
import LastsetCore
import LastsetFormats

/// `lastset audit [filters] [--limit N] [--all-hosts]`: the latest captures and replays from the audit log (and, in
/// a fleet, every host's); `--job ID` shows one record with every register's before and after. `lastset audit
/// verify` checks the log's hash chain; `lastset audit acknowledge --reason TEXT` acknowledges a break of it.
struct Audit: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "audit", abstract: "Show the audit log: who captured or replayed what, when, and the result.",
        discussion: """
            Filters (all given must match): --page, --device, --who (a principal, or a prefix ending in ":" such as
            token:), --result and --kind (comma-separated lists), --since / --until (ISO 8601 times), --job (an id or
            the prefix the JOB column shows). With --job each matching record is shown with its registers: before,
            written, read back and after.

            verify: check the log's hash chain (every record carries the hash of the one before it) and name each
            record that was edited, removed, moved or put in by hand; exit 1 when it is broken. acknowledge (role
            administrator): record that the break was seen, with --reason; lastsetd refuses to write while the chain is
            broken and not acknowledged (docs/AUDIT-CHAIN.md).
            """,
        arguments: [.init(name: "ACTION", help: "verify | acknowledge (without it: the records)", isOptional: true)],
        options: [
            .value("--limit", "N", "Show at most the N latest records (1...10000, default 100)"),
            .flag("--all-hosts", "In a fleet: every host's records as synced here, with a HOST column"),
            .value("--page", "PAGE", "Only this page"),
            .value("--device", "DEVICE", "Only this device (id, or an ad-hoc target's label)"),
            .value("--who", "PRINCIPAL", "Only this principal (uid:1000(ops), token:NAME, or a prefix ending in :)"),
            .value("--result", "RESULTS", "Only these results, e.g. failed,refused,interrupted"),
            .value("--kind", "KINDS", "Only these kinds, e.g. replay,promote,delete"),
            .value("--since", "TIME", "At or after this time (2026-12-01T08:00:00Z)"),
            .value("--until", "TIME", "Before this time"),
            .value("--job", "ID", "One job's records, shown with every register's before and after"),
            .value("--reason", "TEXT", "acknowledge: why the break is acknowledged (required; kept in its audit record)"),
        ])

    /// What the command does.
    enum Action: String {
        /// Show records.
        case show
        /// Check the hash chain.
        case verify
        /// Acknowledge a break of the chain.
        case acknowledge
    }

    /// ACTION.
    let action: Action
    /// `--reason`.
    let reason: String?

    /// `--limit`.
    let limit: Int?
    /// `--all-hosts`.
    let allHosts: Bool
    /// The filters as query parameters, in a fixed order.
    let filters: [(String, String)]
    /// `--job`.
    let job: String?

    /// Takes --limit, --all-hosts and the filters; results, kinds and times must parse.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        let actionText = arguments.optionalArgument("ACTION")
        guard let action = actionText.map({ Action(rawValue: $0) }) ?? .show, actionText != Action.show.rawValue else {
            throw UsageError("ACTION \"\(actionText ?? "")\" is not verify or acknowledge", command: Self.spec)
        }
        self.action = action
        reason = arguments.value("--reason")
        limit = try arguments.integer("--limit", in: 1...10_000)
        allHosts = arguments.flag("--all-hosts")
        job = arguments.value("--job")
        var filters: [(String, String)] = []
        for name in ["page", "device", "who", "result", "kind", "since", "until", "job"] {
            guard let v = arguments.value("--" + name) else { continue }
            guard !v.isEmpty else { throw UsageError("--\(name) needs a non-empty value", command: Self.spec) }
            filters.append((name, v))
        }
        if let r = arguments.value("--result"), let why = AuditFilter.parseList(r, as: AuditResult.self).1 {
            throw UsageError("--result: \(why)", command: Self.spec)
        }
        if let k = arguments.value("--kind"), let why = AuditFilter.parseList(k, as: AuditKind.self).1 {
            throw UsageError("--kind: \(why)", command: Self.spec)
        }
        for name in ["--since", "--until"] {
            if let t = arguments.value(name), TimeText.parseISO8601(t) == nil {
                throw UsageError("\(name) \"\(t)\" is not an ISO 8601 time (2026-12-01T08:00:00Z)", command: Self.spec)
            }
        }
        self.filters = filters
        if action != .show, let first = filters.first?.0 ?? (limit != nil ? "limit" : nil) ?? (allHosts ? "all-hosts" : nil) {
            throw UsageError("--\(first) is for showing records, not for audit \(action.rawValue)", command: Self.spec)
        }
        if action == .acknowledge, (reason ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
            throw UsageError("audit acknowledge needs --reason TEXT (why the break is acknowledged)", command: Self.spec)
        }
        if action != .acknowledge, reason != nil {
            throw UsageError("--reason is for audit acknowledge", command: Self.spec)
        }
    }

    /// Prints the audit table, or each of a job's records with its registers.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        switch action {
        case .show: break
        case .verify:
            let report = try context.api.get(AuditChainReport.self, "/v1/audit/verify")
            if context.options.json { try context.printJSON(report) } else { context.print(TextView.auditChain(report)) }
            return report.intact && report.refusingWrites == nil ? .success : .failure
        case .acknowledge:
            let record = try context.api.post(
                AuditRecord.self, "/v1/audit/acknowledge", json: AuditChainAcknowledgment(reason: reason ?? ""))
            if context.options.json { try context.printJSON(record) } else { context.print([record.message ?? ""]) }
            return .success
        }
        var query = (limit.map { ["limit=\($0)"] } ?? []) + (allHosts ? ["hosts=all"] : [])
        query += filters.map { "\($0.0)=\(DaemonAPI.escape($0.1))" }
        let page = try context.api.get(
            AuditPage.self, "/v1/audit" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
        if context.options.json {
            try context.printJSON(page)
        } else if job != nil {
            guard !page.records.isEmpty else { throw CLIError("no audit record of job \"\(job ?? "")\"") }
            context.print(
                context.rendering(pages: page.records.map(\.pageId)) {
                    Array(page.records.flatMap { TextView.auditRecord($0) + [""] }.dropLast())
                })
        } else {
            context.print(TextView.audit(page))
        }
        return .success
    }
}
