/// The command line of `lastsetd`.
public struct DaemonOptions: Sendable, Equatable {
    public var configPath = "/etc/lastset/lastset.json"
    public var dataDirectory: String?
    public var socketPath: String?
    public var checkConfig = false
    public var logLevel: LogLevel = .info
    public var showHelp = false
    public var showVersion = false

    public init() {}

    /// Usage text, printed by `--help`.
    public static let usage = """
        usage: lastsetd [--config FILE] [--data-dir DIR] [--socket PATH] [--log-level LEVEL]
               lastsetd --check-config [--config FILE]

        Lastset daemon: keeps the last validated parameter template of every page and replays it to
        new machines on request. Runs in the foreground; stop with SIGTERM, reload the config with SIGHUP.

        options:
          --config FILE      config file (JSON5), default /etc/lastset/lastset.json
          --data-dir DIR     templates and audit log; default $STATE_DIRECTORY, else the
                             application support directory + /lastset
          --socket PATH      API Unix socket; default the config's api.socket, else
                             $RUNTIME_DIRECTORY/api.sock, else /run/lastset/api.sock
          --log-level LEVEL  error, warning, info (default) or debug
          --check-config     validate the config, print every problem, exit 0 (valid) or 1
          --version          print the version
          -h, --help         this help
        """

    /// Parses arguments (without the program name); throws a usage error quoting the bad argument.
    public static func parse(_ arguments: [String]) throws(UsageError) -> DaemonOptions {
        var options = DaemonOptions()
        var rest = arguments[...]
        func value(_ flag: String) throws(UsageError) -> String {
            guard let v = rest.popFirst(), !v.hasPrefix("--") else { throw UsageError("\(flag) needs a value") }
            return v
        }
        while let arg = rest.popFirst() {
            switch arg {
            case "--config": options.configPath = try value(arg)
            case "--data-dir": options.dataDirectory = try value(arg)
            case "--socket": options.socketPath = try value(arg)
            case "--check-config": options.checkConfig = true
            case "--log-level":
                let v = try value(arg)
                guard let level = LogLevel(name: v) else {
                    throw UsageError("unknown log level \"\(v)\" (error, warning, info, debug)")
                }
                options.logLevel = level
            case "-h", "--help": options.showHelp = true
            case "--version": options.showVersion = true
            default: throw UsageError("unknown argument \"\(arg)\"")
            }
        }
        return options
    }
}

/// A bad command line; the message quotes the offending argument.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
