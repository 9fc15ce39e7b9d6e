import Foundation
import LastsetCore

/// `lastset export PAGE [--version N] [--format template|ios-archive] [--output FILE [--force]]`: the template file,
/// byte for byte, or the legacy iOS app's archive of it.
struct Export: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "export", abstract: "Save a template file as archived (to stdout, or to a file with --output).",
        arguments: [.init(name: "PAGE", help: "Page id, e.g. heating")],
        options: [
            .value("--version", "N", "Template version: N, or HOST-N in a fleet (default: the latest)"),
            .value("--output", "FILE", "Write to FILE instead of stdout (FILE must not exist unless --force)"),
            .value("--format", "FORMAT", "template (default) or ios-archive (the legacy iOS app's NSKeyedArchiver file)"),
            .flag("--force", "Replace FILE when it exists (a regular file; never a link)"),
        ])

    /// The page.
    let pageId: String
    /// `--version`, nil for the latest.
    let version: TemplateVersionRef?
    /// `--output`.
    let output: String?
    /// `--format`: true for ios-archive.
    let iosArchive: Bool
    /// `--force`: an existing FILE may be replaced.
    let force: Bool

    /// Takes PAGE, --version, --output, --format and --force.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        pageId = arguments.argument("PAGE")
        version = try arguments.templateVersion("--version")
        output = arguments.value("--output")
        force = arguments.flag("--force")
        switch arguments.value("--format") {
        case nil, "template"?: iosArchive = false
        case "ios-archive"?: iosArchive = true
        case let other?:
            throw UsageError("--format must be template or ios-archive (got \"\(other)\")", command: Self.spec)
        }
    }

    /// The page id must be a safe name; --output must not be empty; --force only with --output.
    func validate() throws(UsageError) {
        _ = try ArgumentCheck.pageId(pageId, Self.spec)
        if output?.isEmpty == true { throw UsageError("--output needs a file name", command: Self.spec) }
        if force && output == nil { throw UsageError("--force replaces the --output FILE: give one", command: Self.spec) }
    }

    /// Writes the file's bytes to stdout or to --output: a new file, or with --force a replaced one (`OutputFile`:
    /// never through a link, complete or not at all). FILE is checked before the daemon is asked.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let file = output.map { OutputFile($0, force: force, what: iosArchive ? "template archive" : "template file") }
        try file?.check()
        let path =
            "/v1/pages/\(DaemonAPI.escape(pageId))/templates/\(version.map(\.description) ?? "latest")/file"
            + (iosArchive ? "?format=ios-archive" : "")
        let bytes = try context.api.send("GET", path).body
        guard let output, let file else {
            context.console.outBytes(bytes)
            return .success
        }
        try file.write(bytes, readable: true)
        let version = (try? TemplateFile.decode(Data(bytes))).map { " version \($0.version)" } ?? ""
        let what = iosArchive ? " as an iOS archive" : ""
        context.console.out("exported \(pageId)\(version)\(what) to \(output) (\(bytes.count) bytes)")
        return .success
    }
}
