/// What the config layers over a page's template for one device: its own values, its group's values and the
/// tolerance of each register (by registerId). Compiled into the device's `CompiledPage` (`CompiledPage.layer`),
/// so every job on the device — dry run, replay, diff, polling, rollout — sees the same layer, and a page compiled
/// for another device (or an ad-hoc target) never carries it.
public struct OverrideLayer: Sendable, Hashable {
    /// The device's own values.
    public var device: [String: OverrideValue]
    /// The values of the group the device belongs to (a register set by two of its groups is a config problem).
    public var group: [String: OverrideValue]
    /// Each register's band (every device).
    public var tolerances: [String: Tolerance]

    /// Sets every field (empty: no layer).
    public init(
        device: [String: OverrideValue] = [:], group: [String: OverrideValue] = [:], tolerances: [String: Tolerance] = [:]
    ) {
        self.device = device
        self.group = group
        self.tolerances = tolerances
    }

    /// No overrides and no tolerances: a replay is the template's, as before layers existed.
    public var isEmpty: Bool { device.isEmpty && group.isEmpty && tolerances.isEmpty }
    /// Whether any value is overridden (then every line of a replay says where its value comes from).
    public var overridesValues: Bool { !device.isEmpty || !group.isEmpty }

    /// The effective value of `register` with the template's words (nil: the template has none): `EffectiveValue`.
    public func effective(_ register: CompiledRegister, template: [UInt16]?) -> EffectiveValue? {
        EffectiveValue.decide(
            template: template, eligibility: register.eligibility, device: device[register.registerId],
            group: group[register.registerId])
    }
}
