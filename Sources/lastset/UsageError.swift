/// A command line that cannot be run: printed on stderr with the command's usage and a hint to `--help`; exit 64.
struct UsageError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, quoting the bad value.
    let message: String
    /// The command whose usage line to show (nil for the root command).
    let command: CommandSpec?

    /// A usage error of `command` (nil: of `lastset` itself).
    init(_ message: String, command: CommandSpec? = nil) {
        self.message = message
        self.command = command
    }

    /// The message.
    var description: String { message }

    /// The complete text for stderr: the error, the usage line and where to find help.
    var report: String {
        var lines = ["error: \(message)"]
        if let command {
            lines.append("usage: \(command.usage)")
            lines.append("see \"lastset \(command.name) --help\"")
        } else {
            lines.append("see \"lastset --help\"")
        }
        return lines.joined(separator: "\n")
    }
}
