import LastsetCore

/// One `lastset` command: parsed from its arguments, validated, then run (the swift-argument-parser shape).
protocol Command {
    /// Name, abstract, arguments and options; drives parsing, usage and help.
    static var spec: CommandSpec { get }
    /// False for commands that work offline (no socket is resolved for them).
    static var usesDaemon: Bool { get }
    /// Takes the parsed values; throws for values that do not parse (a number that is not one).
    init(_ arguments: ParsedArguments) throws(UsageError)
    /// Checks the combination of values before anything runs.
    func validate() throws(UsageError)
    /// Does the work and says how it went.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode
}

extension Command {
    /// Most commands talk to the daemon.
    static var usesDaemon: Bool { true }
    /// Nothing to check by default.
    func validate() throws(UsageError) {}
}

/// What a running command can use: the global options, the console and the daemon's API.
struct CommandContext {
    /// The global options as given.
    let options: GlobalOptions
    /// stdout/stderr.
    let console: Console
    /// The API client; nil for offline commands.
    let daemon: DaemonAPI?
    /// The endpoint shown in messages.
    let endpointDescription: String

    /// The API client (only commands with `usesDaemon` call this).
    var api: DaemonAPI {
        guard let daemon else { preconditionFailure("an offline command used the daemon") }
        return daemon
    }

    /// Prints `value` as pretty JSON with sorted keys and the API's date format.
    func printJSON(_ value: some Encodable) throws(CLIError) {
        do {
            console.out(String(decoding: try APICoding.encoder(pretty: true).encode(value), as: UTF8.self))
        } catch {
            throw CLIError("cannot encode JSON output: \(error)")
        }
    }

    /// Prints lines on stdout.
    func print(_ lines: [String]) {
        if !lines.isEmpty { console.out(lines.joined(separator: "\n")) }
    }
}

/// Checks of command-line values shared by several commands.
enum ArgumentCheck {
    /// A page id must be a safe name; quoting it otherwise.
    static func pageId(_ text: String, _ spec: CommandSpec) throws(UsageError) -> String {
        guard SafeName.isValid(text) else {
            throw UsageError(
                "invalid page id \"\(text)\" (expected [A-Za-z0-9][A-Za-z0-9._-]*, at most \(SafeName.maxLength) characters)",
                command: spec)
        }
        return text
    }

    /// A device id must be a safe name; quoting it otherwise.
    static func deviceId(_ text: String, option: String, _ spec: CommandSpec) throws(UsageError) -> String {
        guard SafeName.isValid(text) else {
            throw UsageError(
                "invalid device id \"\(text)\" for \(option) (expected [A-Za-z0-9][A-Za-z0-9._-]*, at most \(SafeName.maxLength) characters)",
                command: spec)
        }
        return text
    }
}
