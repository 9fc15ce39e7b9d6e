import LastsetFormats

/// Where a written value came from and the band it is held to, as the replay's journal (intent), report,
/// audit record and device state record it for each register: `source` (`template` | `override`),
/// `overrideFrom` (`device:ID` | `group:ID`) and `tolerance` (`{absolute: N}` | `{percent: N}`).
public struct EntryOrigin: Sendable, Hashable {
    /// Template or override.
    public var source: ValueSource
    /// The layer of an override.
    public var overrideFrom: OverrideOrigin?
    /// The register's band (nil: exact).
    public var tolerance: Tolerance?

    /// Sets every field.
    public init(source: ValueSource, overrideFrom: OverrideOrigin? = nil, tolerance: Tolerance? = nil) {
        self.source = source
        self.overrideFrom = overrideFrom
        self.tolerance = tolerance
    }

    /// The origin of an effective value under a register's band.
    public init(_ value: EffectiveValue, tolerance: Tolerance?) {
        self.init(source: value.source, overrideFrom: value.origin, tolerance: tolerance)
    }
}

extension EntryOrigin: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = EntryOrigin(source: .template)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("overrideFrom", &r.overrideFrom)
        try f.field("source", &r.source)
        try f.field("tolerance", &r.tolerance)
    }
}
