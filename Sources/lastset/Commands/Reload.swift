import LastsetCore

/// `lastset reload`: asks the daemon to re-read its config file and waits for the verdict (the unit's ExecReload).
struct Reload: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "reload", abstract: "Make the daemon re-read its config file; fails (exit 1) when it refuses the new one.",
        discussion: """
            The daemon checks the file first: with any problem it keeps the running config and this command prints
            every problem (file, JSON path, bad value) and exits 1. systemd's `systemctl reload lastsetd` runs it.
            """)

    /// No arguments.
    init(_ arguments: ParsedArguments) throws(UsageError) {}

    /// Posts `/v1/reload` and prints what the daemon now runs with.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let result = try context.api.post(ReloadResult.self, "/v1/reload", body: [])
        if context.options.json {
            try context.printJSON(result)
        } else {
            context.print(["config reloaded from \(result.configFile): \(result.devices) devices, \(result.pages) pages"])
        }
        return .success
    }
}
