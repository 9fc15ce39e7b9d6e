import Foundation
import LastsetFormats

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
    /// Decodes and checks config text; reports every problem, not just the first. Includes
    /// (`ConfigIncludes`) are read with `read`, relative to `file`.
    public static func check(_ data: Data, file: String, read: @escaping ConfigIncludes.Reader = ConfigIncludes.fileReader)
        throws(ConfigErrors) -> LastsetConfig
    {
        let document: StrictJSONParser.Document
        do throws(JSONSyntaxError) {
            document = try StrictJSONParser.parseDocument([UInt8](data), syntax: .json5)
        } catch {
            throw ConfigErrors(problems: [
                ConfigProblem(file: file, path: "$", value: "", message: "not valid JSON5: \(error)")
            ])
        }
        let root = document.value
        // A repeated key is never resolved by picking one: each is a problem, reported with the rest.
        let repeated = document.duplicates.map {
            ConfigProblem(file: file, path: $0.path, value: "", message: "line \($0.line), column \($0.column): \($0.message)")
        }
        let includes = ConfigIncludes(root, file: file, read: read)
        var checker = ConfigChecker(file: file, read: read)
        let config = checker.config(includes.root)
        guard repeated.isEmpty, includes.problems.isEmpty, checker.problems.isEmpty, let config else {
            throw ConfigErrors(problems: repeated + includes.problems + includes.locate(checker.problems))
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
