/// The shape of one command: its name, one-line abstract, positional arguments and options; renders its help.
struct CommandSpec: Equatable, Sendable {
    /// A positional argument (required unless `isOptional`; optional ones come last).
    struct Argument: Equatable, Sendable {
        /// Shown in usage, e.g. `PAGE`.
        let name: String
        /// One line of help.
        let help: String
        /// Whether it may be left out (usage shows `[PAGE]`).
        var isOptional = false
    }

    /// A `--name` option: a flag, or an option taking one value.
    struct Option: Equatable, Sendable {
        /// The long name with dashes, e.g. `--from`.
        let name: String
        /// The value's placeholder (e.g. `DEVICE`); nil for a flag.
        let valueName: String?
        /// Whether usage shows it without brackets.
        let isRequired: Bool
        /// One line of help.
        let help: String

        /// An option taking a value.
        static func value(_ name: String, _ valueName: String, required: Bool = false, _ help: String) -> Option {
            Option(name: name, valueName: valueName, isRequired: required, help: help)
        }

        /// A flag without a value.
        static func flag(_ name: String, _ help: String) -> Option {
            Option(name: name, valueName: nil, isRequired: false, help: help)
        }

        /// `--from DEVICE` or `--dry-run`.
        var synopsis: String { valueName.map { "\(name) \($0)" } ?? name }
    }

    /// The command word, e.g. `capture`.
    let name: String
    /// One line shown in `lastset --help`.
    let abstract: String
    /// Further paragraphs for the command's own help (may be empty).
    let discussion: String
    /// Positional arguments in order.
    let arguments: [Argument]
    /// The command's own options (the global ones are added by the parser).
    let options: [Option]

    /// Creates a spec.
    init(name: String, abstract: String, discussion: String = "", arguments: [Argument] = [], options: [Option] = []) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
    }

    /// The option named `name`, if the command has it.
    func option(_ name: String) -> Option? { options.first { $0.name == name } }

    /// `lastset capture PAGE --from DEVICE [--json] …`, without the global options.
    var usage: String {
        var parts = ["lastset", name]
        parts += arguments.map { $0.isOptional ? "[\($0.name)]" : $0.name }
        parts += options.map { $0.isRequired ? $0.synopsis : "[\($0.synopsis)]" }
        return parts.joined(separator: " ")
    }

    /// The full help text printed by `lastset NAME --help`.
    var help: String {
        var lines = ["OVERVIEW: \(abstract)", ""]
        if !discussion.isEmpty { lines += [discussion, ""] }
        lines.append("USAGE: \(usage) [GLOBAL OPTIONS]")
        if !arguments.isEmpty {
            lines += ["", "ARGUMENTS:"]
            lines += Self.helpRows(arguments.map { ($0.name, $0.help) })
        }
        if !options.isEmpty {
            lines += ["", "OPTIONS:"]
            lines += Self.helpRows(options.map { ($0.synopsis, $0.help) })
        }
        lines += ["", "GLOBAL OPTIONS:"]
        lines += Self.helpRows(GlobalOptions.helpRows)
        return lines.joined(separator: "\n")
    }

    /// Two-column help rows, the first column padded to the widest entry.
    static func helpRows(_ rows: [(String, String)]) -> [String] {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { "  " + $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }
    }
}
