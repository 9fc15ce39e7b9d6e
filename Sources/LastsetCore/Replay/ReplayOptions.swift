import LastsetFormats

/// How a replay should run.
public struct ReplayOptions: Sendable, Hashable {
    /// Plan and diff only: zero write frames.
    public var dryRun: Bool
    public var onError: OnError
    /// A change request's apply (docs/CHANGE-CONTROL.md): write only if the fresh dry run inside this replay hashes
    /// to this approved `ChangeHash`; otherwise refused, "stale approval", nothing written.
    public var changeHash: String?
    /// Compute the `ChangeHash` of the plan (a change request's dry run) and report it (`ReplayReport.changeHash`).
    public var hashesChange: Bool

    public init(dryRun: Bool = false, onError: OnError = .stop, changeHash: String? = nil, hashesChange: Bool = false) {
        self.dryRun = dryRun
        self.onError = onError
        self.changeHash = changeHash
        self.hashesChange = hashesChange
    }
}

extension ReplayOptions: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = ReplayOptions()

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("changeHash", &r.changeHash)
        try f.field("dryRun", &r.dryRun)
        try f.flag("hashesChange", &r.hashesChange)
        try f.field("onError", &r.onError)
    }
}
