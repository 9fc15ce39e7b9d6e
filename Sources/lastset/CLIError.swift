/// An operation that failed after the command line was accepted (cannot connect, daemon error, bad file); exit 1.
struct CLIError: Error, Equatable, CustomStringConvertible {
    /// The complete human-readable message, quoting the bad value or the daemon's reason.
    let message: String
    /// The API error code when the daemon answered with one (e.g. `device_busy`).
    let code: String?

    /// A failure with a message and, when the daemon gave one, its error code.
    init(_ message: String, code: String? = nil) {
        self.message = message
        self.code = code
    }

    /// The message.
    var description: String { message }
}
