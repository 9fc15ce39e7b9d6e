import Foundation
import LastsetFormats

/// Split config: a page, or a page's `registers`, may be `{ include: "FILE" }` — a JSON5 file (path
/// relative to the including file) holding that page object or that register array. Included files may
/// include others. The includes are spliced into the tree before it is checked, so included register
/// maps are checked exactly like inline ones; each problem is then moved back to the file it came from,
/// with its JSON path inside that file. A missing or unreadable file, a syntax error, an include cycle
/// and nesting deeper than `maxDepth` are problems of their own.
public struct ConfigIncludes {
    /// Reads a file by its resolved path: its bytes, or why it cannot be read.
    public typealias Reader = @Sendable (String) -> Result<Data, ReadFailure>

    /// Why a file could not be read.
    public struct ReadFailure: Error {
        /// e.g. "No such file or directory".
        public var reason: String
        /// A failure with its reason.
        public init(_ reason: String) { self.reason = reason }
    }

    /// Where a subtree of the combined config came from.
    struct Origin {
        /// Its JSON path in the combined tree.
        var path: String
        /// The file it was read from.
        var file: String
    }

    /// The combined tree, with every include spliced in.
    public private(set) var root: JSONValue
    /// Problems with the includes themselves (missing files, syntax, cycles).
    public private(set) var problems: [ConfigProblem] = []
    /// Every file read, the main file first.
    public private(set) var files: [String]
    private var origins: [Origin] = []
    /// Paths whose include failed: the checker's problems below them are consequences, not news.
    private var failed: [String] = []
    private let read: Reader

    /// Deepest nesting of includes.
    public static let maxDepth = 8

    /// Reads files from the file system.
    public static let fileReader: Reader = { path in
        do {
            return .success(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? error.localizedDescription
            return .failure(ReadFailure(FileManager.default.fileExists(atPath: path) ? reason : "no such file"))
        }
    }

    /// Splices every include of `root` (read from `file`) into it.
    public init(_ root: JSONValue, file: String, read: @escaping Reader = ConfigIncludes.fileReader) {
        self.root = root
        self.read = read
        files = [file]
        guard case .object(var top) = root, case .array(var pages)? = top["pages"] else { return }
        for i in pages.indices {
            pages[i] = expandPage(pages[i], path: "pages[\(i)]", file: file, stack: [Self.resolve(file, from: nil)])
        }
        top["pages"] = .array(pages)
        self.root = .object(top)
        // An include inside an included file: its problem's path is the one in that file.
        problems = problems.map { $0.path == "$" ? $0 : locate($0) }
    }

    /// The checker's problems moved to the files their values came from; those below a failed include
    /// (already reported as such) are left out.
    public func locate(_ problems: [ConfigProblem]) -> [ConfigProblem] {
        problems.filter { p in !failed.contains { Self.isPrefix($0, of: p.path) } }.map(locate)
    }

    /// The problem moved to the file its value came from, with the path inside that file.
    public func locate(_ problem: ConfigProblem) -> ConfigProblem {
        var best: Origin?
        for o in origins where Self.isPrefix(o.path, of: problem.path) {
            if best == nil || o.path.count > best!.path.count { best = o }
        }
        guard let best else { return problem }
        var p = problem
        p.file = best.file
        let rest = problem.path.dropFirst(best.path.count)
        p.path = rest.isEmpty ? "$" : rest.hasPrefix(".") ? String(rest.dropFirst()) : "$" + rest
        return p
    }

    private static func isPrefix(_ prefix: String, of path: String) -> Bool {
        guard path.hasPrefix(prefix) else { return false }
        let rest = path.dropFirst(prefix.count)
        return rest.isEmpty || rest.hasPrefix(".") || rest.hasPrefix("[")
    }

    /// The include target of `{include: "…"}`, nil for any other value; a malformed include is a problem.
    private mutating func includeTarget(_ value: JSONValue, path: String, file: String) -> String?? {
        guard case .object(let fields) = value, let target = fields["include"] else { return .none }
        guard case .string(let name) = target, !name.isEmpty else {
            problems.append(
                ConfigProblem(
                    file: file, path: "\(path).include", value: target.abbreviated(), message: "include must be a file name"))
            return .some(nil)
        }
        let extra = fields.keys.filter { $0 != "include" }.sorted()
        if !extra.isEmpty {
            problems.append(
                ConfigProblem(
                    file: file, path: "\(path).\(extra[0])", value: "",
                    message: "an include holds only \"include\"; put \(extra.joined(separator: ", ")) in the included file"))
            return .some(nil)
        }
        return .some(name)
    }

    /// `path` as written, resolved against the directory of `from` (nil: as given, standardized).
    static func resolve(_ path: String, from: String?) -> String {
        if path.hasPrefix("/") || from == nil { return URL(fileURLWithPath: path).standardizedFileURL.path }
        let dir = URL(fileURLWithPath: from!).deletingLastPathComponent()
        return dir.appendingPathComponent(path).standardizedFileURL.path
    }

    /// Reads and parses an included file; nil (and a problem at the include) when it cannot be.
    private mutating func load(_ name: String, includePath: String, file: String, stack: [String]) -> (JSONValue, String)? {
        let resolved = Self.resolve(name, from: file)
        func problem(_ message: String) {
            problems.append(
                ConfigProblem(file: file, path: "\(includePath).include", value: JSONValue.quote(name), message: message))
        }
        if let at = stack.firstIndex(of: resolved) {
            problem("include cycle: " + (stack[at...] + [resolved]).joined(separator: " → "))
            return nil
        }
        guard stack.count < Self.maxDepth else {
            problem("includes nested deeper than \(Self.maxDepth) files")
            return nil
        }
        switch read(resolved) {
        case .failure(let failure):
            problem("cannot read included file \(resolved): \(failure.reason)")
            return nil
        case .success(let data):
            files.append(resolved)
            let document: StrictJSONParser.Document
            do throws(JSONSyntaxError) {
                document = try StrictJSONParser.parseDocument([UInt8](data), syntax: .json5)
            } catch {
                problems.append(ConfigProblem(file: resolved, path: "$", value: "", message: "not valid JSON5: \(error)"))
                return nil
            }
            for d in document.duplicates {
                problems.append(
                    ConfigProblem(
                        file: resolved, path: d.path, value: "", message: "line \(d.line), column \(d.column): \(d.message)"))
            }
            return (document.value, resolved)
        }
    }

    private mutating func expandPage(_ value: JSONValue, path: String, file: String, stack: [String]) -> JSONValue {
        var page = value
        var pageFile = file
        var pageStack = stack
        switch includeTarget(value, path: path, file: file) {
        case .none: break
        case .some(nil):
            failed.append(path)
            return .object([:])
        case .some(let name?):
            guard let (included, resolved) = load(name, includePath: path, file: file, stack: stack) else {
                failed.append(path)
                return .object([:])
            }
            origins.append(Origin(path: path, file: resolved))
            page = included
            pageFile = resolved
            pageStack = stack + [resolved]
        }
        guard case .object(var fields) = page, let registers = fields["registers"] else { return page }
        let registersPath = "\(path).registers"
        switch includeTarget(registers, path: registersPath, file: pageFile) {
        case .none: return page
        case .some(nil):
            failed.append(registersPath)
            fields["registers"] = .array([])
            return .object(fields)
        case .some(let name?):
            guard let (included, resolved) = load(name, includePath: registersPath, file: pageFile, stack: pageStack) else {
                failed.append(registersPath)
                fields["registers"] = .array([])
                return .object(fields)
            }
            origins.append(Origin(path: registersPath, file: resolved))
            fields["registers"] = included
            return .object(fields)
        }
    }
}
