import LastsetCore

/// `lastset status`: the daemon's health and running jobs.
struct Status: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "status", abstract: "Show the daemon's health: version, config, data directory and running jobs.")

    /// No arguments.
    init(_ arguments: ParsedArguments) throws(UsageError) {}

    /// Prints the health summary (and the running jobs, when there are any).
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let health = try context.api.get(HealthInfo.self, "/v1/health")
        if context.options.json {
            try context.printJSON(health)
            return .success
        }
        var running: [JobInfo] = []
        if health.runningJobs > 0 {
            running = try context.api.get([JobInfo].self, "/v1/jobs").filter { $0.state == .running }
        }
        context.print(
            TextView.status(health, socket: context.endpointDescription, runningJobs: running)
                + (health.fleet.map(FleetView.status) ?? []))
        return .success
    }
}
