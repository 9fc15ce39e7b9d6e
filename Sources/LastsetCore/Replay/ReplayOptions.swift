/// How a replay should run.
public struct ReplayOptions: Codable, Sendable, Hashable {
    /// Plan and diff only: zero write frames.
    public var dryRun: Bool
    public var onError: OnError

    public init(dryRun: Bool = false, onError: OnError = .stop) {
        self.dryRun = dryRun
        self.onError = onError
    }
}
