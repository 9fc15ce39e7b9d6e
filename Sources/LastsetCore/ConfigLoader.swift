import Foundation

/// One problem in a config: the file, the JSON path, the bad value and what is wrong.
public struct ConfigProblem: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    /// e.g. `pages[0].registers[3].type`
    public var path: String
    /// The offending value as written (quoted for strings); empty when the value is missing.
    public var value: String
    public var message: String
    public init(file: String, path: String, value: String, message: String) {
        self.file = file
        self.path = path
        self.value = value
        self.message = message
    }
    public var description: String {
        value.isEmpty ? "\(file): \(path): \(message)" : "\(file): \(path): \(message) (got \(value))"
    }
}

/// Every problem found in a config.
public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    public var problems: [ConfigProblem]
    public init(problems: [ConfigProblem]) { self.problems = problems }
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// Reads and checks `lastset.json` (JSON5). STUB: to be implemented.
public enum ConfigLoader {
    /// Decodes and checks config text; reports every problem, not just the first.
    public static func check(_ data: Data, file: String) throws(ConfigErrors) -> LastsetConfig {
        fatalError("unimplemented")
    }

    /// Reads the file and checks it.
    public static func load(path: String) throws(ConfigErrors) -> LastsetConfig {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigErrors(problems: [ConfigProblem(file: path, path: "$", value: "", message: "cannot read file: \(error.localizedDescription)")])
        }
        return try check(data, file: path)
    }
}
