import LastsetCore

/// A command's arguments after parsing: positionals, option values and flags, checked against its `CommandSpec`.
struct ParsedArguments: Equatable, Sendable {
    /// The spec the arguments were parsed against.
    let spec: CommandSpec
    /// Positional arguments, one per `spec.arguments`.
    let positionals: [String]
    /// Values of options that take one, by long name (`--from`).
    let values: [String: String]
    /// Flags given, by long name (`--dry-run`).
    let flags: Set<String>

    /// Parses `tokens` (everything after the command word, global options already removed).
    ///
    /// Accepts `--name value`, `--name=value` and `--` (everything after it is positional). Every option may be given
    /// once; required options and all positionals must be present.
    init(_ tokens: [String], spec: CommandSpec) throws(UsageError) {
        self.spec = spec
        var positionals: [String] = []
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var index = 0
        var onlyPositionals = false
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if onlyPositionals || !token.hasPrefix("-") || token == "-" {
                positionals.append(token)
                continue
            }
            if token == "--" {
                onlyPositionals = true
                continue
            }
            var name = token
            var inlineValue: String?
            if let equals = token.firstIndex(of: "="), token.hasPrefix("--") {
                name = String(token[..<equals])
                inlineValue = String(token[token.index(after: equals)...])
            }
            guard let option = spec.option(name) else {
                throw UsageError("unknown option \"\(name)\" for \"lastset \(spec.name)\"", command: spec)
            }
            guard values[name] == nil, !flags.contains(name) else {
                throw UsageError("option \(name) is given more than once", command: spec)
            }
            if let valueName = option.valueName {
                if let inlineValue {
                    values[name] = inlineValue
                } else if index < tokens.count, !tokens[index].hasPrefix("--") {
                    values[name] = tokens[index]
                    index += 1
                } else {
                    throw UsageError("option \(name) needs a value (\(name) \(valueName))", command: spec)
                }
            } else {
                if let inlineValue {
                    throw UsageError("option \(name) takes no value (got \"\(inlineValue)\")", command: spec)
                }
                flags.insert(name)
            }
        }
        let required = spec.arguments.filter { !$0.isOptional }.count
        if positionals.count < required {
            let missing = spec.arguments[positionals.count]
            throw UsageError("missing argument \(missing.name) (\(missing.help.lowercasedFirst))", command: spec)
        }
        if positionals.count > spec.arguments.count {
            throw UsageError("unexpected argument \"\(positionals[spec.arguments.count])\"", command: spec)
        }
        for option in spec.options where option.isRequired && values[option.name] == nil {
            throw UsageError("missing option \(option.synopsis)", command: spec)
        }
        self.positionals = positionals
        self.values = values
        self.flags = flags
    }

    /// The positional argument called `name` in the spec.
    func argument(_ name: String) -> String {
        guard let index = spec.arguments.firstIndex(where: { $0.name == name }) else {
            preconditionFailure("\(spec.name) has no argument \(name)")
        }
        return index < positionals.count ? positionals[index] : ""
    }

    /// The optional positional argument called `name`, nil when left out.
    func optionalArgument(_ name: String) -> String? {
        guard let index = spec.arguments.firstIndex(where: { $0.name == name }) else {
            preconditionFailure("\(spec.name) has no argument \(name)")
        }
        return index < positionals.count ? positionals[index] : nil
    }

    /// The value of option `name`, if given.
    func value(_ name: String) -> String? { values[name] }

    /// Whether flag `name` was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of option `name` as an integer in `range`, if given; a usage error quoting it otherwise.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound) (got \"\(text)\")", command: spec)
        }
        return number
    }
}

extension ParsedArguments {
    /// The value of a `--version` option: `N` (this host's version N) or `HOST-N` (a fleet id).
    func templateVersion(_ name: String) throws(UsageError) -> TemplateVersionRef? {
        guard let text = value(name) else { return nil }
        guard let ref = TemplateVersionRef.parse(text), ref != .latest, text.utf8.count <= 80 else {
            throw UsageError("\(name) must be a version number N or a fleet id HOST-N (got \"\(text)\")", command: spec)
        }
        return ref
    }
}

extension String {
    /// The string with its first character lower-cased ("Page id" → "page id").
    var lowercasedFirst: String { prefix(1).lowercased() + dropFirst() }
}
