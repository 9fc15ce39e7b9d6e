import Foundation
import Glibc
import LastsetClient
import LastsetCore
import LastsetFormats

/// `lastset backup FILE [--force]`: a consistent copy of the daemon's `lastset.db`, made while it runs and written
/// by the CLI to FILE (so it lands where the CLI's user may write, whatever the daemon's hardening allows it).
struct Backup: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "backup", abstract: "Copy the daemon's database (lastset.db) to FILE while it runs (SQLite's online backup).",
        discussion: """
            The copy holds every record committed before the backup began (jobs keep running meanwhile), is checked by
            the daemon (quick_check, application id, schema version) and by its SHA-256 here, and is written to a
            temporary file beside FILE (.FILE.partial-XXXXXX), fsynced, then moved into place. FILE must not exist (unless --force) and is
            never a symbolic link. To restore it see docs/RELIABILITY.md ("Restoring a backup").
            """,
        arguments: [.init(name: "FILE", help: "Where to write the copy, e.g. /var/backups/lastset-2026-12-04.db")],
        options: [.flag("--force", "Replace FILE when it exists (a regular file; never a link)")])

    /// FILE as given.
    let file: String
    /// `--force`.
    let force: Bool

    /// Takes FILE and --force.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = arguments.argument("FILE")
        force = arguments.flag("--force")
    }

    /// FILE must name a file.
    func validate() throws(UsageError) {
        if file.isEmpty { throw UsageError("FILE must not be empty", command: Self.spec) }
        if file == "-" { throw UsageError("FILE must be a file name (the copy is not written to stdout)", command: Self.spec) }
        if file.hasSuffix("/") { throw UsageError("FILE \"\(file)\" names a directory, not a file", command: Self.spec) }
        if file.utf8.contains(0) { throw UsageError("FILE must not contain a NUL byte", command: Self.spec) }
    }

    /// What `--json` prints.
    struct Summary: Codable, Sendable {
        /// The file written.
        var file: String
        /// Its size.
        var bytes: Int64
        /// SHA-256 of its bytes, as the daemon computed it and as checked here.
        var sha256: String
        /// `PRAGMA user_version` of the copy.
        var schemaVersion: Int?
        /// The live database it copies.
        var database: String?
        /// When its snapshot was taken (every commit before is in it).
        var takenAt: String?
    }

    /// Checks FILE, downloads the copy beside it, verifies it and moves it into place.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let output = OutputFile(file, force: force, what: "backup")
        let target = output.path
        guard !output.name.isEmpty, output.name != ".." else {
            throw CLIError("\(file) names a directory: give the name of the file to write")
        }
        try output.check()
        // The daemon's own database is never a destination (replacing it under a running daemon ruins it).
        if let health = try? context.api.get(HealthInfo.self, "/v1/health") {
            try Self.refuseLiveDatabase(target, dataDirectory: health.dataDirectory)
        }

        let (fd, temporary) = try output.temporary()
        var placed = false
        defer {
            close(fd)
            if !placed { unlink(temporary) }
        }
        let response: HTTPClientResponseSummary
        do throws(HTTPClientError) {
            let r = try context.api.client.download(
                method: "POST", path: "/v1/backup", body: [], to: fd, firstByte: .seconds(3_600), idle: .seconds(120))
            response = HTTPClientResponseSummary(status: r.status, headers: r.headers, body: r.body)
        } catch {
            throw CLIError(error.message)
        }
        guard (200..<300).contains(response.status) else {
            throw DaemonAPI.failure(status: response.status, body: response.body, method: "POST", path: "/v1/backup")
        }
        if let database = response.headers["x-lastset-database"] {
            try Self.refuseLiveDatabase(target, dataDirectory: (database as NSString).deletingLastPathComponent)
        }
        guard fsync(fd) == 0 else { throw CLIError("cannot fsync \(temporary): \(String(cString: strerror(errno)))") }
        let (bytes, digest) = try Self.digest(fd, path: temporary)
        guard let expected = response.headers["x-lastset-sha256"] else {
            throw CLIError("the daemon sent no X-Lastset-SHA256 header: the copy cannot be checked, and was not kept")
        }
        guard expected.lowercased() == digest else {
            throw CLIError(
                "the copy received (\(bytes) bytes) does not match the daemon's SHA-256 (\(expected), received \(digest)): it was not kept"
            )
        }
        try output.place(temporary)
        placed = true

        let summary = Summary(
            file: target, bytes: bytes, sha256: digest,
            schemaVersion: response.headers["x-lastset-schema-version"].flatMap { Int($0) },
            database: response.headers["x-lastset-database"], takenAt: response.headers["x-lastset-taken-at"])
        if context.options.json {
            try context.printJSON(summary)
        } else {
            context.console.out(
                "backed up \(summary.database ?? "lastset.db") to \(target): \(bytes) bytes, schema version \(summary.schemaVersion.map(String.init) ?? "?"), as of \(summary.takenAt ?? "?") (SHA-256 \(digest))"
            )
        }
        return .success
    }

    /// The parts of the reply the command uses.
    private struct HTTPClientResponseSummary {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
    }

    /// Refuses FILE when it is the daemon's database or one of the files SQLite keeps beside it.
    static func refuseLiveDatabase(_ target: String, dataDirectory: String) throws(CLIError) {
        func real(_ path: String) -> String {
            guard let r = realpath(path, nil) else { return path }
            defer { free(r) }
            return String(cString: r)
        }
        let (directory, name) = OutputFile.split(target)
        let resolved = real(directory) + "/" + name
        let live = real(dataDirectory) + "/lastset.db"
        for suffix in ["", "-wal", "-shm", "-journal"] where resolved == live + suffix {
            throw CLIError(
                "\(target) is the daemon's own database\(suffix.isEmpty ? "" : " (its \(suffix.dropFirst()) file)"): a backup must be written elsewhere"
            )
        }
    }

    /// The size and SHA-256 of what was written to `fd`.
    private static func digest(_ fd: Int32, path: String) throws(CLIError) -> (Int64, String) {
        do {
            let digest = try SHA256.of(descriptor: fd)
            return (digest.bytes, digest.hex)
        } catch {
            throw CLIError("cannot read back \(path): \(String(cString: strerror(error.errno)))")
        }
    }
}
