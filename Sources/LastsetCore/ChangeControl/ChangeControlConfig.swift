/// The config's `changeControl` section (docs/CHANGE-CONTROL.md): which pages and registers are protected (an
/// apply to a machine needs an approved change request), and whether every write needs a reason.
public struct ChangeControlConfig: Codable, Sendable, Hashable {
    /// Page ids whose apply needs an approval.
    public var protectedPages: [String]
    /// registerIds: a page holding one of them needs an approval as a whole.
    public var protectedRegisters: [String]
    /// Every write (apply, whole-machine apply, a change's apply) must give a reason.
    public var reasonRequired: Bool

    /// Sets every field.
    public init(protectedPages: [String] = [], protectedRegisters: [String] = [], reasonRequired: Bool = false) {
        self.protectedPages = protectedPages
        self.protectedRegisters = protectedRegisters
        self.reasonRequired = reasonRequired
    }

    /// The section's keys.
    static let keys = ["protectedPages", "protectedRegisters", "reasonRequired"]
}
