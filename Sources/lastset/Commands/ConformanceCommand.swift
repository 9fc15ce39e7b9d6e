import LastsetCore

/// `lastset conformance [PAGE]`: whether each device page still holds the template last applied to it.
struct ConformanceCommand: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "conformance",
        abstract: "Show, for every device and page, the version applied and whether the device still holds it.",
        discussion: """
            States: conforms (every register the template wrote reads back its value), drifted (which registers,
            expected vs live, since when), unknown (never applied, not polled, unreachable, or partially written).
            Polled devices are compared at every poll; for others use `lastset diff PAGE --device DEVICE`.
            Exit status: 0 when nothing drifted, 1 when some device page drifted.
            """,
        arguments: [.init(name: "PAGE", help: "Only this page", isOptional: true)])

    /// The page, nil for all.
    let pageId: String?

    /// Takes the optional PAGE.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        pageId = arguments.optionalArgument("PAGE")
    }

    /// PAGE must be a safe name.
    func validate() throws(UsageError) {
        if let pageId { _ = try ArgumentCheck.pageId(pageId, Self.spec) }
    }

    /// Prints the conformance table.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let list = try context.api.get(
            [PageConformance].self, "/v1/conformance" + (pageId.map { "?page=\(DaemonAPI.escape($0))" } ?? ""))
        if context.options.json {
            try context.printJSON(list)
        } else {
            context.print(
                context.rendering(pages: list.filter { $0.state == .drifted }.map(\.pageId)) { TextView.conformance(list) })
        }
        return list.contains { $0.state == .drifted } ? .failure : .success
    }
}
