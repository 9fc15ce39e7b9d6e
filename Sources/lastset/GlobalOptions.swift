import LastsetClient

/// Options accepted by every command: where the daemon is, JSON output, help; `--version` before the command word.
struct GlobalOptions: Equatable, Sendable {
    /// `--socket PATH`: overrides `$LASTSET_SOCKET` and the default socket.
    var socket: String?
    /// `--json`: print the API's JSON (pretty, keys sorted) instead of tables.
    var json = false
    /// `--help` / `-h`: print help on stdout and exit 0.
    var help = false
    /// `--version` before the command word: print the CLI's version.
    var version = false
    /// `--raw`: register values as stored, not scaled with their unit.
    var raw = false

    /// Help rows shown under GLOBAL OPTIONS.
    static let helpRows: [(String, String)] = [
        ("--socket PATH", "The daemon's API socket (default: $LASTSET_SOCKET, else /run/lastset/api.sock)"),
        ("--json", "Print the API's JSON instead of tables"),
        ("--raw", "Show register values as stored, not scaled with their unit"),
        ("-h, --help", "Show help for the command"),
    ]

    /// Splits the command line: global options (anywhere), the command word, and the rest for the command's parser.
    ///
    /// `--version` is global only before the command word; after it, it belongs to the command (`show --version 3`).
    static func split(_ arguments: [String]) throws(UsageError) -> (GlobalOptions, command: String?, rest: [String]) {
        var options = GlobalOptions()
        var command: String?
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if token == "--" {
                if command == nil { throw UsageError("\"--\" before a command") }
                rest.append(contentsOf: arguments[(index - 1)...])
                break
            }
            switch token {
            case "--json": options.json = true
            case "--raw": options.raw = true
            case "--help", "-h": options.help = true
            case "--version" where command == nil: options.version = true
            case "--socket":
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw UsageError("option --socket needs a value (--socket PATH)")
                }
                options.socket = arguments[index]
                index += 1
            case _ where token.hasPrefix("--socket="):
                options.socket = String(token.dropFirst("--socket=".count))
            case _ where command == nil:
                if token.hasPrefix("-") { throw UsageError("unknown option \"\(token)\"") }
                command = token
            default:
                rest.append(token)
            }
        }
        if options.socket?.isEmpty == true { throw UsageError("--socket needs a non-empty path") }
        return (options, command, rest)
    }

    /// The API endpoint: `--socket`, else `$LASTSET_SOCKET`, else `/run/lastset/api.sock`.
    func endpoint(environment: [String: String]) throws(UsageError) -> ClientEndpoint {
        let (text, source): (String, String)
        if let socket {
            (text, source) = (socket, "--socket")
        } else if let fromEnvironment = environment["LASTSET_SOCKET"], !fromEnvironment.isEmpty {
            (text, source) = (fromEnvironment, "LASTSET_SOCKET")
        } else {
            return .defaultSocket
        }
        do {
            return try ClientEndpoint(parsing: text)
        } catch {
            throw UsageError("\(source): \(error.message)")
        }
    }
}
