import LastsetCore

/// The one-line progress bar drawn on stderr while a capture or replay runs (only when stdout is a terminal). Pure.
enum ProgressBar {
    /// `capture heating [########------------] reading 8/20`; without progress yet, just the phase "starting".
    static func line(kind: String, pageId: String, progress: JobProgress?, width: Int = 20) -> String {
        guard let progress else { return "\(kind) \(pageId) [\(String(repeating: "-", count: width))] starting" }
        let total = max(progress.total, 0)
        let done = min(max(progress.done, 0), total)
        let filled = total == 0 ? 0 : done * width / total
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return "\(kind) \(pageId) [\(bar)] \(progress.phase) \(done)/\(total)"
    }
}
