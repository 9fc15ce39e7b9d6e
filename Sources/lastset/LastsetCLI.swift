import Foundation
import LastsetClient

/// The `lastset` command: finds the command, parses and validates its arguments, runs it, maps the outcome to an exit code.
enum LastsetCLI {
    /// The CLI's own version (`lastset --version`).
    static let version = "0.1.0"

    /// Every command, in the order `lastset --help` lists them.
    static var commands: [any Command.Type] {
        [
            Devices.self, Pages.self, Status.self, Capture.self, Apply.self, Templates.self, Show.self, Diff.self, Export.self,
            Import.self, Audit.self, ImportMap.self, Reload.self, ConformanceCommand.self, RolloutCommand.self, Sync.self,
            FleetCommand.self, Promote.self, DeleteVersion.self, Backup.self, Identify.self, Scan.self, AsFoundCommand.self, CertificateCommand.self,
            Events.self, Change.self,
        ]
    }

    /// Entry point (called from `main.swift`).
    static func main() -> Never {
        let console = Console()
        exit(
            run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment, console: console)
                .rawValue)
    }

    /// Runs one command line; everything it prints goes through `console`.
    static func run(_ arguments: [String], environment: [String: String], console: Console) -> ExitCode {
        do throws(UsageError) {
            let (options, name, rest) = try GlobalOptions.split(arguments)
            guard let name else {
                if options.version {
                    console.out("lastset \(version)")
                    return .success
                }
                console.out(help)
                return .success
            }
            guard let type = commands.first(where: { $0.spec.name == name }) else {
                throw UsageError("unknown command \"\(name)\"")
            }
            if options.help {
                console.out(type.spec.help)
                return .success
            }
            let command = try type.init(ParsedArguments(rest, spec: type.spec))
            try command.validate()
            var daemon: DaemonAPI?
            var endpointDescription = ""
            if type.usesDaemon {
                let endpoint = try options.endpoint(environment: environment)
                let token = environment["LASTSET_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
                daemon = DaemonAPI(endpoint: endpoint, token: token)
                endpointDescription = endpoint.description
            }
            let context = CommandContext(
                options: options, console: console, daemon: daemon, endpointDescription: endpointDescription)
            do {
                return try command.run(context)
            } catch {
                console.err("error: \(error.message)")
                return .failure
            }
        } catch {
            console.err(error.report)
            return .usage
        }
    }

    /// `lastset --help`.
    static var help: String {
        var lines = [
            "OVERVIEW: Capture Modbus parameter pages from a reference machine and replay them to new machines.",
            "",
            "USAGE: lastset COMMAND [ARGUMENTS] [OPTIONS]",
            "",
            "COMMANDS:",
        ]
        lines += CommandSpec.helpRows(commands.map { ($0.spec.name, $0.spec.abstract) })
        lines += ["", "GLOBAL OPTIONS:"]
        lines += CommandSpec.helpRows(
            GlobalOptions.helpRows + [("--version", "Show the version of lastset (before the command)")])
        lines += [
            "",
            "EXIT STATUS: 0 success, 1 the operation failed or the daemon cannot be reached, 64 usage error.",
            "See \"lastset COMMAND --help\" for a command's arguments and options.",
        ]
        return lines.joined(separator: "\n")
    }
}
