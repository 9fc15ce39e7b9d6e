/// The value a device's register gets from a layered template, and where it comes from: the one decision,
/// used by the replay (what it writes), the dry run (what it shows), rollout (whether a new master changes a
/// device) and the certificate (what it records). Pure, table-tested (`EffectiveValueTests`).
public struct EffectiveValue: Sendable, Hashable {
    /// The words to write.
    public var words: [UInt16]
    /// Template or override.
    public var source: ValueSource
    /// The layer of an override (nil for the template's value).
    public var origin: OverrideOrigin?

    /// Sets every field.
    public init(words: [UInt16], source: ValueSource, origin: OverrideOrigin? = nil) {
        self.words = words
        self.source = source
        self.origin = origin
    }

    /// The decision, in this order:
    /// 1. a read-only register is never written (the config refuses an override of one);
    /// 2. the device's own value;
    /// 3. its group's value;
    /// 4. a `clone: false` register is written only from an override, never from the template;
    /// 5. the template's value, when it has one (a register it skipped as "not set", or without an entry, gets none).
    public static func decide(
        template: [UInt16]?, eligibility: RegisterEligibility, device: OverrideValue?, group: OverrideValue?
    ) -> EffectiveValue? {
        if case .skipped(.readOnly) = eligibility { return nil }
        if let device { return EffectiveValue(words: device.words, source: .override, origin: device.origin) }
        if let group { return EffectiveValue(words: group.words, source: .override, origin: group.origin) }
        if case .skipped = eligibility { return nil }
        return template.map { EffectiveValue(words: $0, source: .template) }
    }
}
