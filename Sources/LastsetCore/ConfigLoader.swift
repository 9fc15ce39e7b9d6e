import Foundation

/// One problem in a config: the file, the JSON path, the bad value and what is wrong.
public struct ConfigProblem: Hashable, Sendable, CustomStringConvertible {
    /// The config file's path.
    public var file: String
    /// The JSON path of the bad value, e.g. `pages[0].registers[3].type`
    public var path: String
    /// The offending value as written (quoted for strings); empty when the value is missing.
    public var value: String
    /// What is wrong.
    public var message: String
    /// A problem from its parts.
    public init(file: String, path: String, value: String, message: String) {
        self.file = file
        self.path = path
        self.value = value
        self.message = message
    }
    /// `file: path: message (got value)`.
    public var description: String {
        value.isEmpty ? "\(file): \(path): \(message)" : "\(file): \(path): \(message) (got \(value))"
    }
}

/// Every problem found in a config.
public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    /// The problems, in the order they were found.
    public var problems: [ConfigProblem]
    /// Errors from a list of problems.
    public init(problems: [ConfigProblem]) { self.problems = problems }
    /// One problem per line.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// Reads and checks `lastset.json` (JSON5).
public enum ConfigLoader {
    /// Decodes and checks config text; reports every problem, not just the first.
    public static func check(_ data: Data, file: String) throws(ConfigErrors) -> LastsetConfig {
        let root: JSONValue
        do {
            root = try JSONValue.parse(json5: data)
        } catch {
            // Foundation does not say where; the locator usually can.
            let text = String(decoding: data, as: UTF8.self)
            let message: String
            if let failure = JSON5SyntaxLocator.locate(text) {
                message = "not valid JSON5: line \(failure.line), column \(failure.column): \(failure.message)"
            } else {
                message = "not valid JSON5: \(syntaxMessage(error))"
            }
            throw ConfigErrors(problems: [ConfigProblem(file: file, path: "$", value: "", message: message)])
        }
        var checker = ConfigChecker(file: file)
        let config = checker.config(root)
        guard checker.problems.isEmpty, let config else {
            throw ConfigErrors(problems: checker.problems)
        }
        return config
    }

    /// Checks config text and compiles it (what the daemon runs on).
    public static func compile(_ data: Data, file: String) throws(ConfigErrors) -> CompiledConfig {
        let checked = try check(data, file: file)
        do throws(ConfigErrors) {
            return try CompiledConfig(checked)
        } catch {
            throw ConfigErrors(
                problems: error.problems.map {
                    var p = $0
                    p.file = file
                    return p
                })
        }
    }

    /// Reads the file, checks it and compiles it.
    public static func load(path: String) throws(ConfigErrors) -> CompiledConfig {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigErrors(problems: [
                ConfigProblem(file: path, path: "$", value: "", message: "cannot read file: \(error.localizedDescription)")
            ])
        }
        return try compile(data, file: path)
    }
}

/// The most useful text Foundation gives about a syntax error.
private func syntaxMessage(_ error: any Error) -> String {
    if case DecodingError.dataCorrupted(let context) = error {
        if let underlying = context.underlyingError as NSError?,
            let detail = underlying.userInfo[NSDebugDescriptionErrorKey] as? String
        {
            return detail
        }
        return context.debugDescription
    }
    return String(describing: error)
}
