import LastsetFormats

/// How a replay should run.
public struct ReplayOptions: Sendable, Hashable {
    /// Plan and diff only: zero write frames.
    public var dryRun: Bool
    public var onError: OnError

    public init(dryRun: Bool = false, onError: OnError = .stop) {
        self.dryRun = dryRun
        self.onError = onError
    }
}

extension ReplayOptions: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = ReplayOptions()

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("dryRun", &r.dryRun)
        try f.field("onError", &r.onError)
    }
}
