import Foundation

/// The `sqlite3` command-line shell on a data directory's `lastset.db`, as an administrator uses it: reads
/// (`-readonly`) to check what the daemon recorded, and the writes a test makes to stand for damage from outside
/// the daemon (a row edited, bytes gone bad).
public enum SQLiteShell {
    /// `/usr/bin/sqlite3`; throws when it is not installed (scripts/setup.sh installs it).
    public static func executable() throws(TestSupportError) -> URL {
        let url = URL(fileURLWithPath: "/usr/bin/sqlite3")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw TestSupportError("sqlite3 is not installed (scripts/setup.sh installs it)")
        }
        return url
    }

    /// The rows `sql` selects, one line each (columns joined by `\u{1F}`), read-only.
    public static func query(_ database: URL, _ sql: String) throws(TestSupportError) -> [String] {
        let text = try run(["-readonly", "-separator", "\u{1F}", "-newline", "\u{1E}", database.path, sql])
        return text.split(separator: "\u{1E}", omittingEmptySubsequences: true).map(String.init)
    }

    /// Runs `sql` as a write (a test standing for damage made outside the daemon).
    public static func write(_ database: URL, _ sql: String) throws(TestSupportError) {
        _ = try run(["-cmd", ".timeout 5000", database.path, sql])
    }

    private static func run(_ arguments: [String]) throws(TestSupportError) -> String {
        let run = try ProgramRun.run(try executable(), arguments)
        guard run.status == 0 else {
            throw TestSupportError("sqlite3 \(arguments.joined(separator: " ")) exited \(run.status): \(run.stderr)")
        }
        return run.stdout
    }
}
