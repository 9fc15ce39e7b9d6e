import LastsetCore

/// `lastset as-found DEVICE [PAGE [NUMBER]] [--now]`: a device's as-found history — what its scheduled backups (or
/// `--now`) found on each page and what changed, by whom Lastset knows (docs/AS-FOUND.md).
struct AsFoundCommand: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "as-found",
        abstract: "Show a device's as-found history (scheduled backups), or read it as found now with --now.",
        discussion: """
            Without PAGE: the device's backup schedule, its last attempt and its records, newest first. With PAGE: that
            page's records. With PAGE and NUMBER: one record with every register's value and what changed since the one
            before, each change credited to the Lastset job that made it or to "nobody Lastset knows".
            --now reads every page of the device as found (holding it; nothing is written) and archives each page that
            is new or changed. A record is never a template version: `lastset apply` never writes one.
            Exit status: 0, or 1 when --now could not read every page.
            """,
        arguments: [
            .init(name: "DEVICE", help: "Configured device id"),
            .init(name: "PAGE", help: "Page id: only its records", isOptional: true),
            .init(name: "NUMBER", help: "One record of PAGE, with its values", isOptional: true),
        ],
        options: [
            .flag("--now", "Read the device as found now (a backup job) instead of listing"),
            .value("--limit", "N", "Records listed (1-10000, default 100)"),
        ])

    let device: String
    let pageId: String?
    let number: Int?
    let now: Bool
    let limit: Int?

    /// Takes DEVICE, PAGE, NUMBER, --now and --limit.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        device = arguments.argument("DEVICE")
        pageId = arguments.optionalArgument("PAGE")
        let numberText = arguments.optionalArgument("NUMBER")
        if let numberText {
            guard let n = Int(numberText), n >= 1 else {
                throw UsageError("NUMBER \"\(numberText.prefix(20))\" is not a record number (1, 2, …)", command: Self.spec)
            }
            number = n
        } else {
            number = nil
        }
        now = arguments.flag("--now")
        limit = try arguments.integer("--limit", in: 1...10_000)
    }

    /// Ids must be safe names; --now reads the whole device and lists nothing.
    func validate() throws(UsageError) {
        _ = try ArgumentCheck.deviceId(device, option: "DEVICE", Self.spec)
        if let pageId { _ = try ArgumentCheck.pageId(pageId, Self.spec) }
        if now && (pageId != nil || limit != nil) {
            throw UsageError("--now reads every page of the device: no PAGE, NUMBER or --limit", command: Self.spec)
        }
    }

    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let base = "/v1/devices/\(DaemonAPI.escape(device))/as-found"
        if now {
            let started = try context.api.post(JobInfo.self, base, body: [])
            return try JobRunner(context: context).report(JobRunner(context: context).wait(for: started))
        }
        if let pageId, let number {
            let record = try context.api.get(AsFoundRecord.self, "\(base)/\(DaemonAPI.escape(pageId))/\(number)")
            if context.options.json { try context.printJSON(record) } else { context.print(Self.text(record)) }
            return .success
        }
        var query = "?limit=\(limit ?? 100)"
        if let pageId { query += "&page=\(DaemonAPI.escape(pageId))" }
        let listing = try context.api.get(AsFoundListing.self, base + query)
        if context.options.json { try context.printJSON(listing) } else { context.print(Self.text(listing)) }
        return .success
    }

    /// The listing: schedule and last attempt, then a line per record.
    static func text(_ listing: AsFoundListing) -> [String] {
        var lines = ["device       \(listing.device)", "backup       \(listing.backup.map { "every \($0)" } ?? "not scheduled")"]
        if let at = listing.lastAttempt {
            lines.append("last attempt \(TextView.time(at)): \(listing.failure.map { "failed: \($0)" } ?? "read every page")")
        }
        guard !listing.records.isEmpty else { return lines + ["no as-found record yet"] }
        var table = Table([.init("PAGE"), .init("NUMBER", .right), .init("TAKEN"), .init("BY"), .init("FOUND")])
        for r in listing.records {
            table.append([r.pageId, String(r.number), TextView.time(r.takenAt), r.who, AsFoundComparison.summary(r)])
        }
        return lines + [""] + table.lines
    }

    /// One record: its header, the changes since the one before, then every value.
    static func text(_ record: AsFoundRecord) -> [String] {
        var lines = [
            "device \(record.device), page \(record.pageId), as-found record \(record.number)",
            "taken  \(TextView.time(record.takenAt)) by \(record.who) (audit job \(record.job))",
            "found  \(AsFoundComparison.summary(record))",
        ]
        if !record.identity.isEmpty {
            lines.append("identity " + record.identity.map { "\($0.registerId)=\($0.value)" }.joined(separator: ", "))
        }
        if !record.changes.isEmpty {
            var changes = Table([.init("REGISTER"), .init("CHANGE"), .init("BEFORE"), .init("AFTER"), .init("BY")])
            for c in record.changes {
                changes.append([
                    c.registerId, c.kind.rawValue, TextView.value(c.before?.value), TextView.value(c.after?.value),
                    c.by.map { "job \($0.job) (\($0.who))" } ?? "nobody Lastset knows",
                ])
            }
            lines += [""] + changes.lines
        }
        var values = Table([.init("REGISTER"), .init("ADDRESS", .right), .init("VALUE"), .init("RAW")])
        for v in record.values { values.append([v.registerId, String(v.address), v.value.description, v.valueData]) }
        return lines + [""] + values.lines
    }
}
