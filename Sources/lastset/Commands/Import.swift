import Foundation
import LastsetCore

/// `lastset import FILE [--page PAGE] [--identity ID=VALUE,…|--identity-from DEVICE]`: archive a template
/// file (e.g. from another host) or a legacy iOS app archive as a page's next version.
struct Import: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "import", abstract: "Import an exported template file or a legacy iOS archive as the next version of a page.",
        discussion: """
            A template file is checked here first (format, schema version, checksum); the daemon checks it again.
            An iOS archive (the app's saved page, an NSKeyedArchiver plist) needs --page; it holds no identity values,
            so a page with identity registers also needs --identity or --identity-from (see docs/IMPORT.md).
            """,
        arguments: [.init(name: "FILE", help: "A template file written by export, or an iOS archive")],
        options: [
            .value("--page", "PAGE", "The page an iOS archive holds (a template file names its own)"),
            .value("--identity", "ID=VALUE,…", "Identity values for an iOS archive, e.g. model=PRS-200"),
            .value("--identity-from", "DEVICE", "Read an iOS archive's identity values from this configured device"),
        ])

    /// The file to import.
    let file: String
    /// `--page`.
    let pageId: String?
    /// `--identity`, split into pairs.
    let identity: [(String, String)]
    /// `--identity-from`.
    let identityFrom: String?

    /// Takes FILE, --page, --identity and --identity-from.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = arguments.argument("FILE")
        pageId = arguments.value("--page")
        identityFrom = arguments.value("--identity-from")
        var pairs: [(String, String)] = []
        if let text = arguments.value("--identity") {
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let eq = part.firstIndex(of: "="), eq != part.startIndex else {
                    throw UsageError(
                        "--identity takes ID=VALUE pairs separated by commas (got \"\(part)\")", command: Self.spec)
                }
                pairs.append((String(part[..<eq]), String(part[part.index(after: eq)...])))
            }
        }
        identity = pairs
    }

    /// A page id and a device id must be safe names; --identity and --identity-from exclude each other.
    func validate() throws(UsageError) {
        if let pageId { _ = try ArgumentCheck.pageId(pageId, Self.spec) }
        if let identityFrom { _ = try ArgumentCheck.deviceId(identityFrom, option: "--identity-from", Self.spec) }
        if !identity.isEmpty && identityFrom != nil {
            throw UsageError("give --identity or --identity-from, not both", command: Self.spec)
        }
    }

    /// Reads and checks the file, posts it to its page and prints the version it became.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw CLIError("cannot read \"\(file)\": \(error.localizedDescription)")
        }
        let bytes = [UInt8](data)
        if IOSArchive.recognises(bytes) { return try importArchive(bytes, context) }
        if !identity.isEmpty || identityFrom != nil {
            throw CLIError(
                "\"\(file)\" is a template file, which carries its identity; --identity and --identity-from are for iOS archives")
        }
        let local: Template
        do {
            local = try TemplateFile.decode(data)
        } catch {
            throw CLIError("\"\(file)\" is not a usable template file: \(error.reason)")
        }
        if let pageId, pageId != local.pageId {
            throw CLIError("\"\(file)\" is a template of page \"\(local.pageId)\", not \"\(pageId)\"")
        }
        let archived = try context.api.post(
            Template.self, "/v1/pages/\(DaemonAPI.escape(local.pageId))/templates", body: bytes)
        if context.options.json {
            try context.printJSON(archived)
        } else {
            context.console.out(
                "imported \(file) as \(archived.pageId) version \(archived.versionId.id) (\(TextView.plural(archived.entries.count, "entry", "entries")), captured \(TextView.time(archived.capturedAt)))"
            )
        }
        return .success
    }

    private func importArchive(_ bytes: [UInt8], _ context: CommandContext) throws(CLIError) -> ExitCode {
        guard let pageId else {
            throw CLIError("\"\(file)\" is an iOS archive, which does not say its page: give it with --page PAGE")
        }
        // Checked here first, so a damaged file is refused without contacting the daemon.
        do {
            _ = try IOSArchive.registers(bytes)
        } catch {
            throw CLIError("\"\(file)\" cannot be imported:\n" + error.description)
        }
        let name = URL(fileURLWithPath: file).lastPathComponent
        var query = ["format=ios-archive", "file=\(DaemonAPI.escape(name))"]
        query += identity.map { "identity.\(DaemonAPI.escape($0.0))=\(DaemonAPI.escape($0.1))" }
        if let identityFrom { query.append("identityFrom=\(DaemonAPI.escape(identityFrom))") }
        let archived = try context.api.post(
            Template.self, "/v1/pages/\(DaemonAPI.escape(pageId))/templates?" + query.joined(separator: "&"), body: bytes)
        if context.options.json {
            try context.printJSON(archived)
        } else {
            context.console.out(
                "imported \(file) (iOS archive) as \(archived.pageId) version \(archived.version) (\(TextView.plural(archived.entries.count, "entry", "entries")), \(archived.skipped.count) skipped, values read up to \(TextView.time(archived.capturedAt)))"
            )
        }
        return .success
    }
}
