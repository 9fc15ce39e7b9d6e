import Foundation

/// The daemon's "Application Support": where templates and the audit log live.
public enum DataDirectory {
    /// `--data-dir` if given, else `$STATE_DIRECTORY` (systemd's `StateDirectory=`; the first entry if
    /// several), else Foundation's application support directory + `/lastset`.
    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let explicit, !explicit.isEmpty { return URL(fileURLWithPath: explicit, isDirectory: true) }
        if let state = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !state.isEmpty {
            return URL(fileURLWithPath: String(state), isDirectory: true)
        }
        let base =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".local/share")
        return base.appendingPathComponent("lastset", isDirectory: true)
    }
}
