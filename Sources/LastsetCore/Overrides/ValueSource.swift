import LastsetFormats

/// Where a register's effective value on a device comes from (`EffectiveValue`).
public enum ValueSource: String, JSONFieldValue, Sendable, Hashable, CaseIterable {
    /// The page's template (the master).
    case template
    /// The device's own value, or its group's (`OverrideOrigin`).
    case override
}
