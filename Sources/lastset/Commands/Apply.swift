import LastsetCore

/// `lastset apply PAGE --to DEVICE|ENDPOINT`: replay the page's template to a machine ("use last settings").
struct Apply: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "apply", abstract: "Write a page's template to a device, read it back and report register by register.",
        discussion: """
            --to takes a configured device id, or an endpoint (tcp://HOST:PORT, rtu:///dev/ttyUSB0?baud=19200&parity=N)
            for a machine not in the config (--unit sets its unit id, default 1). --dry-run plans and compares against
            the target's current values without writing anything. --all (instead of PAGE) applies every page of a
            configured device in one job, in the order the config lists them, each with its latest template, identity
            check, steps and verification; it stops at the first page that does not succeed (--continue goes on).
            --last-verified (with --all) is a restore: each page's version last applied and verified on that device,
            not the latest — the replacement policy's choice (docs/REPLACEMENT.md); a page never verified there is
            nothingToRestore.
            --expect-version pins the write to the version a dry run showed (its templateVersionId: 5, or HOST-N in a
            fleet; with --all, PAGE=ID,PAGE=ID for the pages given): when the request resolves to another version by
            then (a capture, import, promote or fleet sync in between), nothing is written (version_changed).
            --reason is kept with the write in the audit log (required under changeControl.reasonRequired). A protected
            page is written only through `lastset change` (four eyes).
            Exit status: 0 when every register verified (or the dry run was planned), 1 otherwise.
            """,
        arguments: [.init(name: "PAGE", help: "Page id, e.g. heating (not with --all)", isOptional: true)],
        options: [
            .value("--to", "DEVICE|ENDPOINT", required: true, "Configured device id, or tcp://… / rtu://… endpoint"),
            .value(
                "--unit", "N", "Unit id for an endpoint given to --to (1...247, default 1; 0 is broadcast, never replayed to)"),
            .flag("--dry-run", "Plan and diff only: no write is sent"),
            .value("--version", "N", "Template version to apply: N, or HOST-N in a fleet (default: the latest)"),
            .value("--on-error", "stop|continue|rollback", "After the first permanent failure (default: stop)"),
            .flag("--all", "Every page of the device given to --to, in config order, in one job"),
            .flag("--continue", "With --all: go on with the next page after one that does not succeed"),
            .flag("--last-verified", "With --all: each page's version last verified on the device (a restore)"),
            .value("--expect-version", "ID|PAGE=ID,…", "Write only if the version is still the one confirmed (a dry run's)"),
            .value("--reason", "TEXT", "Why (kept with the write in the audit log; required where changeControl says so)"),
        ])

    /// The page to replay ("" with --all).
    let pageId: String
    /// `--all`: every page of the device.
    let all: Bool
    /// `--continue`: with --all, go on after a page that did not succeed.
    let continueAfterFailure: Bool
    /// `--last-verified`: with --all, each page's version last verified on the device (a restore).
    let lastVerified: Bool
    /// `--to` as given.
    let target: String
    /// `--unit`.
    let unit: Int?
    /// `--dry-run`.
    let dryRun: Bool
    /// `--version`.
    let version: TemplateVersionRef?
    /// `--on-error`.
    let onError: OnError?
    /// `--expect-version` as given.
    let expectVersion: String?
    /// `--expect-version PAGE=ID,…` of `--all`, by page.
    let expectVersions: [String: String]?
    /// `--reason`.
    let reason: String?

    /// Takes PAGE and the options; numbers and --on-error must parse.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        pageId = arguments.optionalArgument("PAGE") ?? ""
        all = arguments.flag("--all")
        continueAfterFailure = arguments.flag("--continue")
        lastVerified = arguments.flag("--last-verified")
        target = arguments.value("--to") ?? ""
        unit = try arguments.integer("--unit", in: 1...247)
        dryRun = arguments.flag("--dry-run")
        version = try arguments.templateVersion("--version")
        expectVersion = arguments.value("--expect-version")
        reason = arguments.value("--reason")
        expectVersions = all ? try Self.pins(expectVersion) : nil
        if let text = arguments.value("--on-error") {
            guard let parsed = OnError(rawValue: text) else {
                throw UsageError("--on-error must be stop, continue or rollback (got \"\(text)\")", command: Self.spec)
            }
            onError = parsed
        } else {
            onError = nil
        }
    }

    /// Whether --to names an endpoint rather than a configured device.
    var targetIsEndpoint: Bool { target.contains("://") }

    /// The page id, the target (device id or endpoint) and --unit only with an endpoint.
    func validate() throws(UsageError) {
        if all {
            guard pageId.isEmpty else {
                throw UsageError("give PAGE or --all, not both (--all applies every page of the device)", command: Self.spec)
            }
            guard !targetIsEndpoint else {
                throw UsageError(
                    "--all needs a configured device for --to (its pages come from the config), not an endpoint",
                    command: Self.spec)
            }
            if version != nil {
                throw UsageError("--version names one page's version; --all applies each page's latest", command: Self.spec)
            }

            _ = try ArgumentCheck.deviceId(target, option: "--to", Self.spec)
            if let unit {
                throw UsageError("--unit \(unit) applies only to an endpoint", command: Self.spec)
            }
            return
        }
        if continueAfterFailure { throw UsageError("--continue goes with --all", command: Self.spec) }
        if lastVerified {
            throw UsageError(
                "--last-verified goes with --all (one page's older version: --version N)", command: Self.spec)
        }
        guard !pageId.isEmpty else { throw UsageError("missing argument PAGE (or --all)", command: Self.spec) }
        _ = try ArgumentCheck.pageId(pageId, Self.spec)
        if targetIsEndpoint {
            do {
                _ = try Endpoint.parse(target)
            } catch {
                throw UsageError("--to: \(error.description)", command: Self.spec)
            }
        } else {
            _ = try ArgumentCheck.deviceId(target, option: "--to", Self.spec)
            if let unit {
                throw UsageError(
                    "--unit \(unit) applies only to an endpoint; device \"\(target)\" has its unit in the config",
                    command: Self.spec)
            }
        }
    }

    /// The request body.
    var request: ApplyRequest {
        ApplyRequest(
            device: targetIsEndpoint ? nil : target, endpoint: targetIsEndpoint ? target : nil, unit: unit, version: version,
            dryRun: dryRun ? true : nil, onError: onError, expectVersion: expectVersion, reason: reason)
    }

    /// `--expect-version PAGE=ID,PAGE=ID` of `--all`, by page.
    static func pins(_ text: String?) throws(UsageError) -> [String: String]? {
        guard let text else { return nil }
        var out: [String: String] = [:]
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, out[String(parts[0])] == nil else {
                throw UsageError(
                    "--expect-version with --all takes PAGE=ID,PAGE=ID (each page once), got \"\(text)\"", command: spec)
            }
            out[String(parts[0])] = String(parts[1])
        }
        return out
    }

    /// Starts the replay, follows it and prints its report.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        if all {
            return try JobRunner(context: context).run(
                path: "/v1/devices/\(DaemonAPI.escape(target))/apply",
                body: ApplyAllRequest(
                    dryRun: dryRun ? true : nil, onError: onError, onPageFailure: continueAfterFailure ? .continue : nil,
                    expectVersions: expectVersions, reason: reason, versions: lastVerified ? .lastVerified : nil))
        }
        return try JobRunner(context: context).run(path: "/v1/pages/\(DaemonAPI.escape(pageId))/apply", body: request)
    }
}
