import LastsetCore

/// `lastset diff PAGE --device DEVICE [--version N]`: compare a template with a device's current values;
/// `lastset diff PAGE --version A --against B`: compare two archived versions.
struct Diff: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "diff",
        abstract: "Compare a page's template with a device's current values (a dry run: nothing is written), or two versions.",
        discussion: """
            With --device: the template (latest, or --version) against what the device holds now. With --against B:
            what changes going from version B to --version A (registers added, removed, changed); no device is read.
            Exit status: 0 when the comparison was made (whether or not values differ), 1 when it could not be.
            """,
        arguments: [.init(name: "PAGE", help: "Page id, e.g. heating")],
        options: [
            .value("--device", "DEVICE", "Configured id of the device to compare"),
            .value("--version", "N", "Template version: N, or HOST-N in a fleet (default: the latest)"),
            .value("--against", "N", "Compare --version with this version instead of with a device"),
        ])

    /// The page.
    let pageId: String
    /// The device.
    let device: String
    /// `--version`, nil for the latest.
    let version: TemplateVersionRef?
    /// `--against`: the baseline version of a version diff.
    let against: TemplateVersionRef?

    /// Takes PAGE, --device and --version.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        pageId = arguments.argument("PAGE")
        device = arguments.value("--device") ?? ""
        version = try arguments.templateVersion("--version")
        against = try arguments.templateVersion("--against")
    }

    /// Page and device ids must be safe names.
    func validate() throws(UsageError) {
        _ = try ArgumentCheck.pageId(pageId, Self.spec)
        switch (device.isEmpty, against) {
        case (true, nil): throw UsageError("missing option --device DEVICE (or --against N)", command: Self.spec)
        case (false, _?): throw UsageError("give --device or --against, not both", command: Self.spec)
        case (false, nil): _ = try ArgumentCheck.deviceId(device, option: "--device", Self.spec)
        case (true, _?): break
        }
    }

    /// Prints the planned report.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        if let against {
            let path =
                "/v1/pages/\(DaemonAPI.escape(pageId))/templates/\(DaemonAPI.escape((version ?? .latest).description))/diff?against=\(DaemonAPI.escape(against.description))"
            let diff = try context.api.get(TemplateDiff.self, path)
            if context.options.json {
                try context.printJSON(diff)
            } else {
                context.print(context.rendering(pages: [pageId]) { TextView.templateDiff(diff) })
            }
            return .success
        }
        var path = "/v1/pages/\(DaemonAPI.escape(pageId))/diff?device=\(DaemonAPI.escape(device))"
        if let version { path += "&version=\(version)" }
        let report = try context.api.get(ReplayReport.self, path)
        if context.options.json {
            try context.printJSON(report)
        } else {
            // Factory defaults (a vendor list's Default) are shown as such next to the values.
            let page = try? context.api.get(PageDefinition.self, "/v1/pages/\(DaemonAPI.escape(pageId))")
            var factory: [String: RegisterValue] = [:]
            for r in page?.registers ?? [] { if let f = r.factoryDefault { factory[r.registerId] = f } }
            context.print(context.rendering(pages: [pageId]) { TextView.replay(report, factory: factory) })
        }
        return report.status == .planned ? .success : .failure
    }
}
